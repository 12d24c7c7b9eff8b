"""The one helper every transformation uses: rebuild a graph node by node.

``rebuild(graph, rule)`` visits nodes inputs-first; ``rule(node, inputs)`` gets the node and its
already-rebuilt inputs and returns the replacement (or None to keep the node, re-created only
when an input changed). New nodes are created in program order, so node ids stay increasing
along data dependencies, as the eager interpreter expects.

**Loop graphs** (with effects, or LOOP and IF nodes with body graphs) are rebuilt at every level: the nodes of
the region and of every body and branch are visited together in program (id) order, so a body
reading an outer node a rule replaced reads the replacement, and a LOOP/IF node gets a new
body once its nodes are rebuilt (a body's nodes come before its LOOP/IF node). In a loop graph
ids are more than a topological order: the loop-region planner compares them with the ids of
STOREs to know whether a value is read before or after a store. So once anything changes,
every node but the inputs is re-created, in the original order, and the new ids keep it. Rules
that must not move a value across levels use :func:`scopes`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from astcompile.ir.graph import Graph, IfAttr, LoopAttr, Node, walk
from astcompile.ir.ops import Op

Rule = Callable[[Node, tuple[Node, ...]], Node | None]
Scope = tuple[int, ...]  # id() of each graph from the region down to a node's level


def with_inputs(node: Node, inputs: tuple[Node, ...]) -> Node:
    """``node`` itself when ``inputs`` are its inputs, else a copy reading ``inputs``."""
    if all(a is b for a, b in zip(inputs, node.inputs)):
        return node
    return copy_of(node, inputs)


def copy_of(node: Node, inputs: tuple[Node, ...], attr: object = None) -> Node:
    """``node`` re-created on ``inputs``: a new id, after every node made before it."""
    attr = node.attr if attr is None else attr
    return Node(node.op, inputs, node.dtype, node.shape, attr, node.loc)


def subgraphs(node: Node) -> list[Graph]:
    """The body of a LOOP, the two branches of an IF; nothing for other nodes."""
    if isinstance(node.attr, LoopAttr):
        return [node.attr.body]
    if isinstance(node.attr, IfAttr):
        return [node.attr.then_graph, node.attr.else_graph]
    return []


def rebuild(graph: Graph, rule: Rule, drop: frozenset[int] = frozenset()) -> tuple[Graph, bool]:
    """The rewritten graph and whether anything changed. ``drop``: ids of effects (IF nodes a
    rule turned into values, passes/ifconvert.py) left out of every level's effects."""
    if graph.effects or any(subgraphs(n) for n in graph.nodes()):
        return _rebuild_levels(graph, rule, drop)
    new: dict[int, Node] = {}
    for node in graph.nodes():
        inputs = tuple(new[i.id] for i in node.inputs)
        replaced = rule(node, inputs)
        new[node.id] = replaced if replaced is not None else with_inputs(node, inputs)
    changed = any(new[n.id] is not n for n in graph.nodes())
    if not changed:
        return graph, False
    return _remapped(graph, new), True


def _remapped(graph: Graph, new: dict[int, Node], drop: frozenset[int] = frozenset()) -> Graph:
    def each(nodes: list[Node]) -> list[Node]:
        return [new[n.id] for n in nodes if n.id not in drop]

    return Graph(
        graph.name, each(graph.inputs), each(graph.outputs), each(graph.effects), list(graph.guards)
    )


class _Levels:
    """The state of one rebuild of a loop graph."""

    def __init__(self, rule: Rule, drop: frozenset[int]) -> None:
        self.rule = rule
        self.drop = drop
        self.new: dict[int, Node] = {}  # original id -> its node in the new graph
        self.copies: dict[int, Node] = {}  # original id -> the copy that keeps its place
        self.placed: set[int] = set()  # ids of the nodes in ``new``
        self.changed = False

    def visit(self, node: Node) -> None:
        self.new[node.id] = self._replacement(node)
        self.placed.add(self.new[node.id].id)

    def _replacement(self, node: Node) -> Node:
        if node.op is Op.INPUT:
            return node  # body inputs are what LoopAttr.holders name
        inputs = tuple(self.new[i.id] for i in node.inputs)
        if subgraphs(node):
            return copy_of(node, inputs, self._control_attr(node))
        replaced = self.rule(node, inputs)
        if replaced is None or replaced is node:
            replaced = self._placed(node, inputs)
        elif replaced.id in self.copies:  # an earlier original the rule kept: its copy
            replaced = self.copies[replaced.id]
            self.changed = True
        elif not _same(node, replaced, inputs) or replaced.id in self.placed:
            self.changed = True
        return replaced

    def _placed(self, node: Node, inputs: tuple[Node, ...]) -> Node:
        """``node`` at its own place: a copy with a new id, in order (leaves too: a size check or
        a run-time size reads locals that statements before it declare)."""
        copy = copy_of(node, inputs)
        self.copies[node.id] = copy
        return copy

    def _control_attr(self, node: Node) -> object:
        bodies = {id(g): _remapped(g, self.new, self.drop) for g in subgraphs(node)}
        if isinstance(node.attr, LoopAttr):
            return dataclasses.replace(node.attr, body=bodies[id(node.attr.body)])
        return dataclasses.replace(
            node.attr,
            then_graph=bodies[id(node.attr.then_graph)],
            else_graph=bodies[id(node.attr.else_graph)],
        )


def _same(node: Node, replaced: Node, inputs: tuple[Node, ...]) -> bool:
    """Whether ``replaced`` is ``node`` re-created on ``inputs`` (a rule keeping it)."""
    return (
        replaced.op is node.op
        and replaced.attr is node.attr
        and replaced.dtype == node.dtype
        and replaced.shape == node.shape
        and len(replaced.inputs) == len(inputs)
        and all(a is b for a, b in zip(replaced.inputs, inputs))
    )


def _rebuild_levels(graph: Graph, rule: Rule, drop: frozenset[int]) -> tuple[Graph, bool]:
    state = _Levels(rule, drop)
    every = {n.id: n for n in walk(graph.nodes())}
    try:
        for node in sorted(every.values(), key=lambda n: n.id):
            state.visit(node)
    except KeyError:  # a body node after its LOOP/IF: leave the graph as it is
        return graph, False
    if not state.changed and not drop:
        return graph, False
    return _remapped(graph, state.new, drop), True


def scopes(graph: Graph) -> dict[int, Scope]:
    """Node id -> the level it is computed at: the outermost graph that reaches it (a body may
    read outer nodes directly), as the path of graphs from the region down. A value of one
    level may stand for an equal value only of the same level or one around it."""
    found: dict[int, Scope] = {}
    _own(graph, (id(graph),), found)
    return found


def _own(graph: Graph, path: Scope, found: dict[int, Scope]) -> None:
    mine = [n for n in graph.nodes() if n.id not in found]
    for node in mine:
        found[node.id] = path
    for node in mine:
        for sub in subgraphs(node):
            _own(sub, (*path, id(sub)), found)


def within(inner: Scope, outer: Scope) -> bool:
    """Whether level ``outer`` is ``inner`` or encloses it."""
    return inner[: len(outer)] == outer
