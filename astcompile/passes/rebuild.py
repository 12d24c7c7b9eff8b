"""The one helper every transformation uses: rebuild a graph node by node.

``rebuild(graph, rule)`` visits nodes inputs-first; ``rule(node, inputs)`` gets the node and its
already-rebuilt inputs and returns the replacement (or None to keep the node, re-created only
when an input changed). New nodes are created in program order, so node ids stay increasing
along data dependencies, as the eager interpreter expects.
"""

from __future__ import annotations

from collections.abc import Callable

from astcompile.ir.graph import Graph, Node

Rule = Callable[[Node, tuple[Node, ...]], Node | None]


def with_inputs(node: Node, inputs: tuple[Node, ...]) -> Node:
    """``node`` itself when ``inputs`` are its inputs, else a copy reading ``inputs``."""
    if all(a is b for a, b in zip(inputs, node.inputs)):
        return node
    return Node(node.op, inputs, node.dtype, node.shape, node.attr, node.loc)


def rebuild(graph: Graph, rule: Rule) -> tuple[Graph, bool]:
    """The rewritten graph and whether anything changed."""
    new: dict[int, Node] = {}
    for node in graph.nodes():
        inputs = tuple(new[i.id] for i in node.inputs)
        replaced = rule(node, inputs)
        new[node.id] = replaced if replaced is not None else with_inputs(node, inputs)
    changed = any(new[n.id] is not n for n in graph.nodes())
    if not changed:
        return graph, False
    result = Graph(
        graph.name,
        [new[n.id] for n in graph.inputs],
        [new[n.id] for n in graph.outputs],
        [new[n.id] for n in graph.effects],
        list(graph.guards),
    )
    return result, True
