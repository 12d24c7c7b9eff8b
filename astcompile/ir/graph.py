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
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Iterable, Iterator

import numpy as np

from astcompile.ir.ops import Kind, Op, kind
from astcompile.ir.shapes import Dim, ShapeGuard

_ids = itertools.count()


@dataclass(frozen=True)
class Loc:
    """Where a node came from in the user's code; diagnostics and generated comments use it."""

    filename: str
    line: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}"


class InputKind(Enum):
    ARRAY = "array"  # an ndarray argument
    SCALAR = "scalar"  # a Python or NumPy scalar passed by value (never guarded by value)
    LOOP_VAR = "loop_var"  # a LOOP body's induction variable (int64)
    CARRIED = "carried"  # a LOOP body's loop-carried value at the start of an iteration


@dataclass(frozen=True)
class InputAttr:
    index: int  # position among the region's flattened array/scalar leaves
    name: str  # the user's variable name, for generated code and printing
    input_kind: InputKind
    weak: bool = False  # a Python scalar: NEP 50 "weak" promotion


@dataclass(frozen=True)
class ReduceAttr:
    axes: tuple[int, ...]  # normalised, sorted, non-negative
    keepdims: bool
    ddof: int = 0


@dataclass(frozen=True)
class IndexItem:
    """One entry of a basic index, already normalised against the input's axis.

    ``kind`` is "slice" (``start``/``length``/``step`` select a strided range of the axis),
    "int" (``start`` picks one element; the axis is dropped), "newaxis" (adds a size-1 axis) or
    "dslice": a slice whose bounds are known only at run time (``x[i:i + k]`` in a loop);
    ``start``/``stop`` are then the raw bounds (None when omitted) that NumPy clips when the
    code runs, and ``length`` is a RUN size (:func:`astcompile.ir.shapes.runtime_dim`).
    """

    kind: str
    start: "Dim | DynIndex | None" = 0  # a DynIndex only for "int" and "dslice" items
    length: Dim = 0
    step: int = 1
    stop: "Dim | DynIndex | None" = None  # "dslice" only


@dataclass(frozen=True)
class DynIndex:
    """An index known only at run time: the value of ``node.inputs[input]`` (an int64 scalar).

    Used as ``IndexItem.start`` of an "int" item (``x[i]`` with ``i`` a loop variable). NumPy's
    rules apply when it runs: a negative index counts from the end once, and anything still
    out of range raises ``IndexError``.
    """

    input: int

    def __str__(self) -> str:
        return f"${self.input}"


@dataclass(frozen=True)
class SizeCheckAttr:
    """A run-time check of RUN sizes (a SIZE_CHECK effect): ``kind`` is "broadcast" (``a == b`` or
    either is 1), "store" (value size ``a`` fits target size ``b``: equal or 1), "equal", or
    "nonempty" (``a > 0``). A failed check raises NumPy's ValueError."""

    kind: str
    dims: tuple[Dim, ...]


@dataclass(frozen=True)
class StoreAttr:
    index: tuple[IndexItem, ...]  # where in the target; () means the whole target


@dataclass(frozen=True)
class LoopAttr:
    """``for i in range(start, stop, step)`` or ``while test`` with loop-carried state.

    A ``for`` LOOP node's inputs are ``(start, stop, step, *initial_carried, *captured)``;
    ``body`` takes ``(i, *carried)`` and returns the next ``carried``. With ``exits`` the body
    returns one more value, a bool: run another iteration (False after a ``break``). A ``while``
    LOOP (``is_while``) has inputs ``(go, *initial_carried, *captured)``, where ``go`` is the
    test on the initial values; its body takes ``(*carried)`` and always ``exits``: its last
    output is the test on the next values (False after a ``break``).
    """

    body: "Graph"
    carried: int
    parallel: bool = False
    exits: bool = False
    is_while: bool = False

    @property
    def heads(self) -> int:
        """How many control inputs come before the initial carried values."""
        return 1 if self.is_while else 3

    @property
    def holders(self) -> "list[Node]":
        """The body inputs that stand for the carried values."""
        return self.body.inputs[0 if self.is_while else 1 :]


@dataclass(frozen=True)
class CheckAttr:
    """A CHECK raises ``exception(message)`` when its input is false (``assert``, domain
    errors of ``math`` functions, Python's division by zero on loop values)."""

    exception: str  # a builtin exception's name: "AssertionError", "ValueError", ...
    message: str


@dataclass(frozen=True)
class IfAttr:
    """``if cond`` on a scalar: inputs ``(cond, *captured)``; both graphs take ``captured``."""

    then_graph: "Graph"
    else_graph: "Graph"


@dataclass(frozen=True, eq=False)
class Node:
    op: Op
    inputs: tuple["Node", ...]
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
    if item.kind == "newaxis":
        return "None"
    if item.kind == "int":
        return str(item.start)
    if item.kind == "dslice":
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
    """Every node of a node list and, for control nodes, of their sub-graphs."""
    for node in nodes:
        yield node
        if isinstance(node.attr, LoopAttr):
            yield from walk(node.attr.body.nodes())
        elif isinstance(node.attr, IfAttr):
            yield from walk(node.attr.then_graph.nodes())
            yield from walk(node.attr.else_graph.nodes())


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


def verify(graph: Graph) -> None:
    """Check the invariants passes rely on; tests call it between passes."""
    input_ids = {n.id for n in graph.inputs}
    for node in graph.nodes():
        if node.op is Op.INPUT and node.id not in input_ids:
            raise VerifyError(f"{node!r} is an INPUT not listed in graph.inputs")
        if not isinstance(node.dtype, np.dtype):
            raise VerifyError(f"{node!r} has dtype {node.dtype!r}, not an np.dtype")
        if any(isinstance(d, int) and d < 0 for d in node.shape):
            raise VerifyError(f"{node!r} has a negative size in {node.shape}")
        if node.op is Op.STORE and node not in graph.effects:
            raise VerifyError(f"{node!r} is a STORE missing from graph.effects")
        if isinstance(node.attr, ReduceAttr) and any(
            a >= len(node.inputs[0].shape) for a in node.attr.axes
        ):
            raise VerifyError(f"{node!r} reduces an axis its input does not have")


@dataclass(frozen=True)
class ConstAttr:
    """A constant. ``weak`` marks a Python scalar literal: NEP 50 lets the other operand's dtype
    win (``x_f32 * 2.0`` stays float32), so backends must not widen it to the node's dtype early."""

    value: Any
    weak: bool = False

    def __repr__(self) -> str:
        return repr(self.value)
