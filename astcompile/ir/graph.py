"""The graph IR: small, typed, immutable nodes.

A :class:`Node` is one op applied to input nodes, with the dtype and (symbolic) shape NumPy would
give its result. Nodes compare by identity; passes build new nodes instead of mutating old ones.
A :class:`Graph` is one region's computation: its inputs, the nodes its outputs need, and its
effects (stores) in program order.

Loops and stores are part of the IR from the start. A store is an effect on the buffer it
aliases: ``u = U[1:-1, 1:-1]; u += x`` is a STORE whose target is an INDEX view of the input
``U``, so it writes into ``U`` exactly as NumPy does. A LOOP node carries a body sub-graph whose
inputs are the induction variable and the loop-carried values and whose outputs are the carried
values of the next iteration; RESULT nodes pick the loop's final values.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from astcompile import config
from astcompile.ir.attrs import (
    CheckAttr,
    ConstAttr,
    DynIndex,
    IfAttr,
    IndexItem,
    IndexKind,
    InputAttr,
    InputKind,
    LoopAttr,
    NumpyCallAttr,
    ReduceAttr,
    SizeCheckAttr,
    SizeCheckKind,
    StoreAttr,
)
from astcompile.ir.ops import Kind, Op, Signature, kind, signature
from astcompile.ir.shapes import Dim, ShapeGuard

#: The attribute types live in ir/attrs.py (the op table names them); most code imports them
#: from here, with the graph.
__all__ = [
    "CheckAttr",
    "ConstAttr",
    "DynIndex",
    "Graph",
    "IfAttr",
    "IndexItem",
    "IndexKind",
    "InputAttr",
    "InputKind",
    "Loc",
    "LoopAttr",
    "Node",
    "NumpyCallAttr",
    "ReduceAttr",
    "SizeCheckAttr",
    "SizeCheckKind",
    "StoreAttr",
    "VerifyError",
    "format_graph",
    "format_shape",
    "own_nodes",
    "verify",
    "verify_between",
    "walk",
]

_ids = itertools.count()


@dataclass(frozen=True)
class Loc:
    """Where a node came from in the user's code; diagnostics and generated comments use it."""

    filename: str
    line: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}"


@dataclass(frozen=True, eq=False)
class Node:
    op: Op
    inputs: tuple[Node, ...]
    dtype: np.dtype
    shape: tuple[Dim, ...]
    attr: Any = None
    loc: Loc | None = None
    id: int = field(default_factory=lambda: next(_ids))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def kind(self) -> Kind:
        return kind(self.op)

    def __repr__(self) -> str:
        return f"%{self.id}"


@dataclass
class Graph:
    """One region's computation. ``outputs`` are the values leaving the region."""

    name: str
    inputs: list[Node]
    outputs: list[Node]
    effects: list[Node] = field(default_factory=list)
    guards: list[ShapeGuard] = field(default_factory=list)

    def nodes(self) -> list[Node]:
        """Every node reachable from outputs and effects, inputs first (topological order)."""
        order: list[Node] = []
        seen: set[int] = set()
        for root in [*self.inputs, *self.effects, *self.outputs]:
            _visit(root, seen, order)
        return order

    def op_count(self) -> int:
        """Ops in the graph, counting those inside loop bodies and branches once each."""
        return sum(1 for n in walk(self.nodes()) if n.kind is not Kind.LEAF)

    def __str__(self) -> str:
        return format_graph(self)


def _visit(root: Node, seen: set[int], order: list[Node]) -> None:
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if node.id in seen:
            continue
        if expanded:
            seen.add(node.id)
            order.append(node)
            continue
        stack.append((node, True))
        stack.extend((i, False) for i in reversed(node.inputs) if i.id not in seen)


def _format_attr(attr: Any) -> str:
    if attr is None:
        return ""
    if isinstance(attr, InputAttr):
        return f" {attr.name}"
    if isinstance(attr, ReduceAttr):
        ddof = f", ddof={attr.ddof}" if attr.ddof else ""
        return f" axes={attr.axes}, keepdims={attr.keepdims}{ddof}"
    if isinstance(attr, tuple) and attr and isinstance(attr[0], IndexItem):
        return " [" + ", ".join(_format_item(i) for i in attr) + "]"
    if isinstance(attr, LoopAttr):
        kind = " while" if attr.is_while else ""
        return f"{kind} carried={attr.carried}{' exits' if attr.exits else ''}"
    if isinstance(attr, CheckAttr):
        return f" {attr.exception}({attr.message!r})"
    if isinstance(attr, IfAttr):
        return ""
    return f" {attr!r}"


def _format_item(item: IndexItem) -> str:
    if item.kind is IndexKind.NEWAXIS:
        return "None"
    if item.kind is IndexKind.INT:
        return str(item.start)
    if item.kind is IndexKind.DSLICE:
        bounds = ("" if b is None else str(b) for b in (item.start, item.stop))
        return ":".join(bounds) + f":{item.step}"
    return f"{item.start}:+{item.length}:{item.step}"


def format_shape(shape: Iterable[Dim]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(tuple(shape)) == 1 else "") + ")"


def format_graph(graph: Graph) -> str:
    """A readable listing, one node a line, for ``explain`` and debug dumps."""
    lines = [
        f"graph {graph.name}({', '.join(_format_attr(n.attr).strip() for n in graph.inputs)}):"
    ]
    _format_nodes(graph.nodes(), lines, "    ")
    lines.append(f"    return {', '.join(repr(o) for o in graph.outputs)}")
    for guard in graph.guards:
        lines.append(f"    guard {guard}")
    return "\n".join(lines)


def _format_nodes(nodes: Iterable[Node], lines: list[str], indent: str) -> None:
    for node in nodes:
        if node.op is Op.INPUT and node.attr.input_kind in (InputKind.LOOP_VAR, InputKind.CARRIED):
            continue
        args = ", ".join(repr(i) for i in node.inputs)
        where = f"  # {node.loc}" if node.loc else ""
        lines.append(
            f"{indent}{node!r} = {node.op.name.lower()}({args}){_format_attr(node.attr)}"
            f" : {node.dtype}{format_shape(node.shape)}{where}"
        )
        for label, sub in _subgraphs(node):
            head = ", ".join(repr(n) for n in sub.inputs)
            lines.append(f"{indent}  {label}({head}):")
            _format_nodes(own_nodes(sub, node.inputs), lines, indent + "    ")
            lines.append(f"{indent}    yield {', '.join(repr(o) for o in sub.outputs)}")


def _subgraphs(node: Node) -> list[tuple[str, Graph]]:
    if isinstance(node.attr, LoopAttr):
        return [("body", node.attr.body)]
    if isinstance(node.attr, IfAttr):
        return [("then", node.attr.then_graph), ("else", node.attr.else_graph)]
    return []


def walk(nodes: Iterable[Node]) -> Iterator[Node]:
    """Every node of a node list and, for control nodes, of their sub-graphs, each once. A
    sub-graph's nodes include the outer values it reads, and a chain of branches each reading
    the one before (``on`` counted in nine unrolled ``if``s) would otherwise be walked 2**9
    times."""
    return _walk(nodes, set())


def _walk(nodes: Iterable[Node], seen: set[int]) -> Iterator[Node]:
    for node in nodes:
        if node.id in seen:
            continue
        seen.add(node.id)
        yield node
        if isinstance(node.attr, LoopAttr):
            yield from _walk(node.attr.body.nodes(), seen)
        elif isinstance(node.attr, IfAttr):
            yield from _walk(node.attr.then_graph.nodes(), seen)
            yield from _walk(node.attr.else_graph.nodes(), seen)


def own_nodes(graph: Graph, outer: Iterable[Node]) -> list[Node]:
    """A LOOP body's or IF branch's own nodes in program order: the traversal stops at its
    inputs and at the enclosing graphs' nodes it reads (``outer``, the control node's inputs)."""
    stop = {n.id for n in outer} | {n.id for n in graph.inputs}
    order: list[Node] = []
    seen: set[int] = set(stop)
    for root in [*graph.effects, *graph.outputs]:
        _visit(root, seen, order)
    return sorted(order, key=lambda n: n.id)


class VerifyError(AssertionError):
    """An IR invariant is broken: a compiler bug, never a user error."""


def verify_between(graph: Graph, stage: str) -> None:
    """The hook the stage runner calls after each stage that leaves a graph: with
    ``config.verify_ir`` set (tests set it) the graph is verified, and a broken invariant names
    the stage that broke it. Off, it costs one attribute read."""
    if not config.verify_ir:
        return
    try:
        verify(graph)
    except VerifyError as exc:
        raise VerifyError(f"after {stage}: {exc}") from None


def verify(graph: Graph) -> None:
    """Check the invariants passes rely on, in the graph and its loop bodies and branches;
    tests run it after tracing and after every pass (see :func:`verify_between`)."""
    _verify_nodes(graph, graph.nodes(), frozenset())


def _verify_nodes(graph: Graph, nodes: Iterable[Node], outer_inputs: frozenset[int]) -> None:
    inputs = outer_inputs | {n.id for n in graph.inputs}
    effects = {n.id for n in graph.effects}
    for node in nodes:
        _verify_node(node, inputs, effects)
        for _label, sub in _subgraphs(node):
            _verify_nodes(sub, own_nodes(sub, node.inputs), inputs)


def _verify_node(node: Node, inputs: set[int] | frozenset[int], effects: set[int]) -> None:
    if node.op is Op.INPUT and node.id not in inputs:
        raise VerifyError(f"{node!r} is an INPUT not listed in graph.inputs")
    if not isinstance(node.dtype, np.dtype):
        raise VerifyError(f"{node!r} has dtype {node.dtype!r}, not an np.dtype")
    if any(isinstance(d, int) and d < 0 for d in node.shape):
        raise VerifyError(f"{node!r} has a negative size in {node.shape}")
    if node.op is Op.STORE and node.id not in effects:
        raise VerifyError(f"{node!r} is a STORE missing from graph.effects")
    _verify_signature(node)
    if isinstance(node.attr, LoopAttr) and len(node.inputs) < node.attr.heads + node.attr.carried:
        raise VerifyError(f"{node!r} has fewer inputs than its loop heads and carried values")
    if isinstance(node.attr, ReduceAttr) and any(
        a >= len(node.inputs[0].shape) for a in node.attr.axes
    ):
        raise VerifyError(f"{node!r} reduces an axis its input does not have")


def _verify_signature(node: Node) -> None:
    """Arity and attribute type against the op table (:data:`astcompile.ir.ops.SIGNATURES`)."""
    sig = signature(node.op)
    if not sig.arity_ok(len(node.inputs)):
        expected = f"{'at least ' if sig.more else ''}{sig.inputs}"
        raise VerifyError(f"{_what(node)} has {len(node.inputs)} inputs, expected {expected}")
    if not sig.attr_ok(node.attr):
        raise VerifyError(f"{_what(node)} carries {node.attr!r}, expected {_type_names(sig)}")


def _what(node: Node) -> str:
    return f"{node!r} = {node.op.name.lower()}"


def _type_names(sig: Signature) -> str:
    types = sig.attr if isinstance(sig.attr, tuple) else (sig.attr,)
    names = " or ".join("None" if t is type(None) else t.__name__ for t in types)
    if sig.each is None:
        return names
    each = sig.each if isinstance(sig.each, tuple) else (sig.each,)
    return f"a {names} of {' or '.join(t.__name__ for t in each)}"
