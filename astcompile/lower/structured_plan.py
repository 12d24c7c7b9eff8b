"""What a target's loop emitter needs to know before it writes a line (C: structured C).

* **Levels**: each node belongs to the outermost graph (region, loop body, branch) that reaches
  it; a body may use nodes of enclosing graphs directly (implicit capture).
* **Buffers**: computed arrays that must exist in memory: store targets (``np.zeros(n)`` then
  ``out[i] = ...``), region outputs, partial reductions, loop-carried initial values, branch
  results, and values read after a store that may change what they read. Other computed arrays
  stay *lazy*: fused into the loop nest of each consumer.

**NumPy steps first**: a NumPy step (``x.sort()``'s sort, ``np.percentile(x, q)``) of the
region's own arguments, before any store, loop or branch in program order, is run by the
wrapper before the region function and passed to it like an argument (``hoisted``); any other
step makes the region run as written.

Program order is node id order. A lazy value is evaluated where its consumers run; if a STORE
lies between the value's creation and one of those places (or in a loop around the consumer,
which repeats), it is materialised at its own position instead, as NumPy would have computed it.

    t = a * 2            # lazy: fused into the store below ...
    b[1:] = t[:-1]       # ... unless a store to anything came in between
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from astcompile.ir.graph import ConstAttr, DynIndex, Graph, InputKind, Node, walk
from astcompile.ir.ops import Kind, Op
from astcompile.passes.rebuild import subgraphs

if TYPE_CHECKING:
    from astcompile.targets.base import Target


class StructuredUnsupported(NotImplementedError):
    """A structured graph uses something the target's loop emitter does not write: run it eagerly.
    ``loc`` is the user's line of the node at fault, where one is known: a loop holding it
    can go back to Python so that the rest compiles (jit/regions.py)."""

    def __init__(self, message: str, loc: object = None) -> None:
        super().__init__(message)
        self.loc = loc


VIEW_OPS = frozenset({Op.INDEX, Op.TRANSPOSE, Op.BROADCAST_TO, Op.RESHAPE, Op.REAL, Op.IMAG})
Sink = tuple[int, int]  # (id(level graph), position id)


@dataclass
class StructPlan:
    graph: Graph
    owner: dict[int, Graph] = field(default_factory=dict)  # node id -> level
    parent: dict[int, Node] = field(default_factory=dict)  # id(level) -> its LOOP/IF node
    levels: dict[int, list[Node]] = field(default_factory=dict)  # id(level) -> nodes, id order
    consumers: dict[int, list[Node]] = field(default_factory=dict)
    buffers: set[int] = field(default_factory=set)
    stores: list[int] = field(default_factory=list)  # ids of every STORE, any level
    results: dict[int, dict[int, Node]] = field(default_factory=dict)  # LOOP/IF id -> k -> RESULT
    written_inputs: set[int] = field(default_factory=set)  # array arguments a store may reach
    hoisted: list[Node] = field(default_factory=list)  # NumPy steps the wrapper runs first

    def is_scalar(self, node: Node) -> bool:
        return node.shape == () and node.op not in (
            Op.STORE,
            Op.LOOP,
            Op.IF,
            Op.CHECK,
            Op.SIZE_CHECK,
        )

    def rooted(self, node: Node) -> bool:
        """Whether ``node`` is an array in memory (an argument, buffer, placeholder, or a view)."""
        if node.id in self.buffers or node.op is Op.STORE or node in self.hoisted:
            return True
        if node.op is Op.INPUT:
            return node.attr.input_kind in (InputKind.ARRAY, InputKind.CARRIED) and node.shape != ()
        if node.op is Op.RESULT:
            return node.inputs[0].op is Op.LOOP and node.shape != ()
        return node.op in VIEW_OPS and self.rooted(node.inputs[0])


def plan_structured(graph: Graph, target: Target) -> StructPlan:
    """Plan ``graph`` for the loop emitter of ``target``, which says which values it writes
    inside loops (:meth:`~astcompile.targets.base.Target.in_loops`); the plan itself is the
    same for every target."""
    plan = StructPlan(graph)
    _own(plan, graph)
    plan.hoisted = _hoisted(plan)
    for nodes in plan.levels.values():
        for node in nodes:
            if node not in plan.hoisted:
                _check(node, target)
            for src in node.inputs:
                plan.consumers.setdefault(src.id, []).append(node)
            if node.op is Op.STORE:
                plan.stores.append(node.id)
            if node.op is Op.RESULT:
                plan.results.setdefault(node.inputs[0].id, {})[node.attr] = node
    plan.stores.sort()
    plan.written_inputs = _written_inputs(plan)
    _force_buffers(plan)
    _materialise_before_stores(plan)
    return plan


def _own(plan: StructPlan, graph: Graph) -> None:
    mine = sorted((n for n in graph.nodes() if n.id not in plan.owner), key=lambda n: n.id)
    for node in mine:
        plan.owner[node.id] = graph
    plan.levels[id(graph)] = mine
    for node in mine:
        for sub in subgraphs(node):
            plan.parent[id(sub)] = node
            _own(plan, sub)


def _hoisted(plan: StructPlan) -> list[Node]:
    """NumPy steps of arrays (not 0-d) that read only the region's arguments, in the region's
    own level, before every store, check, loop and branch: NumPy would run them first too."""
    effects = (Kind.EFFECT, Kind.CONTROL)
    first = min((n.id for n in walk(plan.graph.nodes()) if n.kind in effects), default=None)
    return [
        node
        for node in plan.levels[id(plan.graph)]
        if node.op is Op.NUMPY
        and node.shape != ()
        and (first is None or node.id < first)
        and all(i.op is Op.INPUT for i in node.inputs)
    ]


def _check(node: Node, target: Target) -> None:
    if node.op in (Op.STORE, Op.LOOP, Op.IF, Op.RESULT, Op.CHECK, Op.SIZE_CHECK):
        return
    if node.op is Op.CONST and not isinstance(node.attr, ConstAttr):
        raise StructuredUnsupported(
            f"a constant of {type(node.attr).__name__} ({node.loc})", node.loc
        )
    if node.kind is Kind.EXTERN and not (node.shape == () and target.in_loops(node)):
        raise StructuredUnsupported(
            f"{node.op.name} inside a structured region ({node.loc})", node.loc
        )
    if not target.in_loops(node):
        raise StructuredUnsupported(f"{_what(node)} ({node.loc})", node.loc)
    if node.op is Op.INPUT and node.attr.input_kind is InputKind.ARRAY and node.shape == ():
        raise StructuredUnsupported("a 0-d array argument")


def _what(node: Node) -> str:
    """The value a target's loop emitter cannot write, as an error names it."""
    if node.op is Op.CONST and node.shape != ():
        return f"an array constant of {node.dtype}"
    if node.kind is Kind.REDUCTION:
        return f"reduction {node.op.name}"
    return f"{node.op.name} on dtype {node.dtype}"


def _base(node: Node) -> Node:
    while node.op in VIEW_OPS or node.op is Op.STORE:
        node = node.inputs[0]
    return node


def _written_inputs(plan: StructPlan) -> set[int]:
    """Ids of the array arguments stores may write: store targets, and the initial values of
    loop-carried arrays (stores through the carried array reach them on the first iteration).
    The others are read-only: the wrapper may pass a copy whose last axis has stride 1."""
    found = set()
    for nodes in plan.levels.values():
        for node in nodes:
            if node.op is Op.STORE:
                found.add(_base(node.inputs[0]).id)
            elif node.op is Op.LOOP:
                inits = node.inputs[node.attr.heads : node.attr.heads + node.attr.carried]
                found |= {_base(init).id for init in inits}
    return found


def _computed(plan: StructPlan, node: Node) -> bool:
    """An array value that is computed, not memory: a candidate for a buffer."""
    return node.shape != () and not plan.rooted(node) and node.op not in (Op.LOOP, Op.IF)


def _force(plan: StructPlan, node: Node) -> None:
    if _computed(plan, node):
        plan.buffers.add(node.id)


def _force_buffers(plan: StructPlan) -> None:
    for nodes in plan.levels.values():
        for node in nodes:
            if node.op is Op.STORE:
                base = node.inputs[0]
                while base.op in VIEW_OPS or base.op is Op.STORE:
                    base = base.inputs[0]
                _force(plan, base)
            elif node.op is Op.RESHAPE:
                _force(plan, node.inputs[0])
                if node.inputs[0].id not in plan.buffers:
                    raise StructuredUnsupported(
                        f"reshape of a strided array ({node.loc})", node.loc
                    )
            elif node.kind is Kind.REDUCTION and node.shape != ():
                plan.buffers.add(node.id)
            elif node.op is Op.LOOP:
                for init in node.inputs[node.attr.heads : node.attr.heads + node.attr.carried]:
                    _force(plan, init)
            elif node.op is Op.RESULT and node.inputs[0].op is Op.IF and node.shape != ():
                plan.buffers.add(node.id)
    for out in plan.graph.outputs:
        _force(plan, returned_base(out))


#: Views a region returns as NumPy views of the array they view (its strides, ``.base``,
#: writes through it reach the rest): that array is the buffer. Not a reshape (its input is
#: a buffer already, above).
RETURNED_VIEWS = frozenset({Op.INDEX, Op.TRANSPOSE, Op.BROADCAST_TO, Op.REAL, Op.IMAG})


def returned_base(out: Node) -> Node:
    """The array that the returned ``out`` views (``y`` of ``return y[::2]``, ``y.T``), or
    ``out`` itself. An index known only at run time is not followed: that output is a
    buffer of its own."""
    while out.op in RETURNED_VIEWS and not runtime_index(out):
        out = out.inputs[0]
    return out


def runtime_index(node: Node) -> bool:
    """Whether ``node`` is an index with a start or length known only at run time."""
    return node.op is Op.INDEX and any(
        isinstance(i.start, DynIndex) or i.kind == "dslice" for i in node.attr
    )


def lift(plan: StructPlan, sink: Sink, node: Node) -> int:
    """The position, in ``node``'s level, at which ``sink`` runs (a loop around it repeats)."""
    level, pos = sink
    target = id(plan.owner[node.id])
    while level != target:
        ctrl = plan.parent.get(level)
        if ctrl is None:
            return pos
        if ctrl.op is Op.LOOP:
            pos = ctrl.id
        level = id(plan.owner[ctrl.id])
    return pos


def _materialise_before_stores(plan: StructPlan) -> None:
    sinks: dict[int, list[Sink]] = {}
    body_out: dict[int, list[Sink]] = {}
    for nodes in plan.levels.values():
        for ctrl in nodes:
            for sub in subgraphs(ctrl):
                for out in sub.outputs:
                    body_out.setdefault(out.id, []).append((id(sub), ctrl.id))
    every = sorted((n for ns in plan.levels.values() for n in ns), key=lambda n: -n.id)
    for node in every:
        found = list(body_out.get(node.id, []))
        for user in plan.consumers.get(node.id, []):
            if user.op in (Op.LOOP, Op.IF):
                continue  # captured values: the body's own uses count
            lazy = _computed(plan, user) and user.id not in plan.buffers
            found += sinks[user.id] if lazy else [(id(plan.owner[user.id]), user.id)]
        sinks[node.id] = found
        if not _computed(plan, node) or node.id in plan.buffers:
            continue
        if any(_store_between(plan, node.id, lift(plan, s, node)) for s in found):
            plan.buffers.add(node.id)
            sinks[node.id] = [(id(plan.owner[node.id]), node.id)]


def _store_between(plan: StructPlan, lo: int, hi: int) -> bool:
    return any(lo < s < hi for s in plan.stores)
