"""Loop regions as host programs, target-free: a host loop launching the body's kernels each
iteration (the Triton target's ``host_loops`` form, planned with its rules).

A user loop whose loop form is a host loop (:func:`~astcompile.lower.loop_schedule.loop_form`:
sequential, its body whole-array statements) runs as a Python loop in the region's wrapper.
Each level (the region, a loop body, a branch) is cut at its loops and branches into
*segments*: the statements between two of them, a flat graph of fused kernels, or a store
region's phases (:mod:`astcompile.lower.store_plan`) when it stores into views. A
segment's inputs are the region's, then *stand-ins* for what it reads from elsewhere (a loop
variable, a carried value, a value an earlier segment computed); its outputs are what the host
or a later segment needs:

    for t in range(steps):                       # host: for t in range(0, steps, 1):
        u[1:-1] = u[1:-1] + c * (u[2:] - ...)    #   segment: one kernel, one store kernel

Arrays stay where the wrapper put them (on the GPU: copied in once, out once); a scalar the
host itself needs (a ``while`` test, a ``break``, a bound computed on the device) is read back
each time it is tested; a branch is a host ``if``, and scalars of host values (a counter, a
bound) are computed on the host; a row at a run-time index (``a[t]``, ``hist[t, :] = u``) is
a view the host makes. A loop of scalar element updates, a run-time slice, or a segment the
target cannot lower has no host program: :func:`host_program` says None (on Triton the region
runs on the C target).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from astcompile.ir.attrs import DynIndex, IndexItem, IndexKind, InputAttr, InputKind, StoreAttr
from astcompile.ir.graph import Graph, Node, walk
from astcompile.ir.ops import Kind, Op
from astcompile.lower.host_plan import blocks, host_leaf, host_scalars, written_arguments
from astcompile.lower.index_ranges import indexed_shape
from astcompile.lower.loop_grid import vectorize
from astcompile.lower.loop_schedule import LoopForm, build_schedule, loop_forms
from astcompile.lower.store_plan import StoreRegion, store_region
from astcompile.passes.schedule import Schedule, schedule

if TYPE_CHECKING:
    from astcompile.targets.base import Target
from astcompile.lower.structured_plan import StructPlan, StructuredUnsupported, plan_structured

#: Nodes every segment makes itself: constants and sizes (region inputs are every segment's).
OWN = frozenset({Op.CONST, Op.DIM})
#: Effects a segment runs as a store region's events.
EVENTS = frozenset({Op.STORE, Op.CHECK})


@dataclass(frozen=True)
class Segment:
    """Statements between two loops of one level, as a graph of their own."""

    graph: Graph  #: inputs: the region's, then one stand-in per node of ``reads``
    reads: tuple[Node, ...]  #: the values it reads from the host, in stand-in order
    hands_on: tuple[Node, ...]  #: the values it returns, in order
    stores: StoreRegion | None  #: its phases, when it stores into views
    kernels: Schedule | None  #: else its graph's kernels (a target's stages may rewrite them)


@dataclass(frozen=True)
class HostStep:
    """A scalar computed on the host from host values (a counter, a bound): NumPy's own
    scalar arithmetic, no launch and nothing read back."""

    node: Node


@dataclass(frozen=True)
class HostIndex:
    """``x[i]`` with ``i`` a run-time value, made by the host where the program makes it:
    a view (or, for one element, its value) the segments after it read, or the view a store
    writes (``view``). NumPy's own indexing: a negative index counts from the end, and one out
    of range raises ``IndexError`` after the statements before it ran."""

    node: Node  #: an INDEX
    view: bool = False  #: a view even of one element (a store's target)


@dataclass(frozen=True)
class HostLoop:
    """A user loop the host runs, launching its body's segments each iteration."""

    node: Node  #: the LOOP
    body: Items


@dataclass(frozen=True)
class HostBranch:
    """An ``if`` the host decides, running one block's items; its results are host variables."""

    node: Node  #: the IF
    then: Items
    orelse: Items


Items = tuple[Segment | HostStep | HostIndex | HostLoop | HostBranch, ...]  #: a level, in order


@dataclass(frozen=True)
class HostProgram:
    graph: Graph
    body: Items
    stored_leaves: tuple[int, ...]  #: arguments a store may write (copied back from a GPU)
    reads_back: tuple[str, ...]  #: why the host reads device values back, in words
    host: frozenset[int]  #: ids of the scalars the host computes (:func:`host_scalars`)
    grids: tuple[str, ...] = ()  #: the independent loops made whole-array statements (lines)

    def on_host(self, node: Node) -> bool:
        """Whether the host has ``node``'s value without reading the device."""
        return node.id in self.host or host_leaf(node)

    def parts(self) -> list[tuple[Graph, Schedule | None]]:
        """Each segment's graph and kernels, then its phases' (``StoreRegion.parts``)."""
        segments = [s for s in every_item(self.body) if isinstance(s, Segment)]
        return [
            p
            for s in segments
            for p in ((s.graph, s.kernels), *(s.stores.parts() if s.stores else ()))
        ]

    def __str__(self) -> str:
        """Its segments' graphs in program order, inside the host's loops and branches."""
        return _text(self.body, "")


def every_item(items: Items) -> Iterator:
    """``items`` and those of their loops' and branches' blocks, in program order."""
    for item in items:
        yield item
        if isinstance(item, HostLoop):
            yield from every_item(item.body)
        elif isinstance(item, HostBranch):
            yield from every_item(item.then + item.orelse)


def _text(items: Items, pad: str) -> str:
    out = []
    for item in items:
        if isinstance(item, Segment):
            out.append(textwrap.indent(str(item.graph), pad))
        elif isinstance(item, (HostLoop, HostBranch)):
            parts = (item.body,) if isinstance(item, HostLoop) else (item.then, item.orelse)
            out += [f"{pad}host {item.node.op.name.lower()} {item.node!r} at {item.node.loc}:"]
            out += [_text(block, pad + "    ") or f"{pad}    pass" for block in parts]
        else:
            out.append(f"{pad}host {type(item).__name__} {item.node!r} at {item.node.loc}")
    return "\n".join(out)


def leaf_positions(graph: Graph) -> dict[int, int]:
    """Node id of each region input -> its position among the leaves."""
    return {n.id: k for k, n in enumerate(graph.inputs)}


def host_program(graph: Graph, target: Target) -> HostProgram | None:
    """``graph`` as host loops over segments, or None when some part has no form on
    ``target`` (whose ``in_loops`` plans the loops, and ``supports`` the stores)."""
    try:
        plan = plan_structured(graph, target)
    except StructuredUnsupported:
        return None
    forms = loop_forms(build_schedule(graph, plan))
    if not forms or any(form is LoopForm.SCALAR for form in forms.values()):
        return None
    builder = _Builder(graph, plan, forms, target)
    try:
        body = builder.program()
    except _NoForm:
        return None
    reads_back = tuple(builder.reads_back)
    host, grids = frozenset(builder.host), tuple(builder.grids)
    return HostProgram(graph, body, builder.stored_leaves(), reads_back, host, grids)


class _NoForm(Exception):
    """A segment that neither the flat nor the store lowering takes."""


class _Builder:
    def __init__(self, graph: Graph, plan: StructPlan, forms: dict, target: Target) -> None:
        self.graph, self.plan, self.forms, self.target = graph, plan, forms, target
        self.leaves = leaf_positions(graph)
        self.reads_back: list[str] = []
        self.store_targets: list[Node] = []
        self.segments = 0
        self.grids: list[str] = []
        self.host = host_scalars(graph)

    def program(self) -> Items:
        """Every level's items in program order. The segments' reads are collected over the
        whole region first: they decide what each segment hands on (a later segment, or a
        loop body, may read a value of an earlier one)."""
        raw = self._collect(self.graph)
        outside = {x.id for m in _found(raw, list) for x in self._outside(m)}
        self.needed = self._host_uses() | outside
        self.needed |= {x.id for h in _found(raw, HostIndex) for x in h.node.inputs}
        return self._finish(raw)

    def _host_uses(self) -> set[int]:
        """Ids of the values the host itself uses: loop bounds, carried values, outputs."""
        needed = {o.id for o in self.graph.outputs}
        for node in walk(self.graph.nodes()):
            if node.op is Op.LOOP:
                attr = node.attr
                needed |= {i.id for i in node.inputs[: attr.heads + attr.carried]}
                needed |= {o.id for o in attr.body.outputs}
            elif node.op is Op.IF:
                needed |= {node.inputs[0].id}
                needed |= {o.id for g in blocks(node) for o in g.outputs}
        return needed

    def _collect(self, graph: Graph) -> list:
        """A level as lists of members (segments to be) and (loop, its body's items)."""
        items: list = []
        members: list[Node] = []
        for node in self.plan.levels[id(graph)]:
            if node.op is Op.LOOP and self.forms[node.id] is LoopForm.GRID:
                members += _grid(node)
                self.grids.append(_where(node))
            elif node.op is Op.LOOP:
                items += [members, (node, self._collect(node.attr.body))]
                members = []
            elif node.op is Op.IF:
                items += [members, (node, *(self._collect(g) for g in blocks(node)))]
                members = []
            elif runtime_index(node):
                items += [members, *self._host_index(node)]
                members = []
            elif node.op not in OWN and node.op not in (Op.INPUT, Op.RESULT):
                members.append(node)
        return [*items, members]

    def _host_index(self, node: Node) -> list:
        """The items of an index or a store at a run-time index: the host makes the view, and
        a store into it is a segment of its own (its new nodes come after every other)."""
        where = _where(node)
        if any(
            item.kind is IndexKind.DSLICE or isinstance(item.stop, DynIndex)
            for item in (node.attr if node.op is Op.INDEX else node.attr.index)
        ):
            raise _NoForm  # x[i:j]: its length is known only when it runs
        if node.op is Op.INDEX:
            self._index_reads(node, where)
            return [HostIndex(node)]
        target, value, *indices = node.inputs
        items = tuple(_shifted(item) for item in node.attr.index)
        shape = indexed_shape(target.shape, items)
        view = Node(Op.INDEX, (target, *indices), target.dtype, shape, items, node.loc)
        self._index_reads(view, where)
        store = Node(Op.STORE, (view, value), node.dtype, shape, StoreAttr(()), node.loc)
        return [HostIndex(view, view=True), [store]]

    def _index_reads(self, node: Node, where: str) -> None:
        if not all(self.is_host(i) for i in node.inputs[1:]):
            self.reads_back.append(f"the index at {where}")

    def _finish(self, raw: list) -> Items:
        out: list = []
        for item in raw:
            if isinstance(item, HostIndex):
                out.append(item)
            elif isinstance(item, list):  # host scalars read only host values: they go first
                out += [HostStep(n) for n in item if n.id in self.host]
                members = [n for n in item if n.id not in self.host]
                if members:
                    out.append(self._segment(members))
            elif item[0].op is Op.IF:
                if not self.is_host(item[0].inputs[0]):
                    self.reads_back.append(f"the if test at {_where(item[0])}")
                out.append(HostBranch(item[0], self._finish(item[1]), self._finish(item[2])))
            else:
                self._loop_reads(item[0])
                out.append(HostLoop(item[0], self._finish(item[1])))
        return tuple(out)

    def _loop_reads(self, loop: Node) -> None:
        """What the host reads back from the device to run ``loop``, in words."""
        attr = loop.attr
        where = _where(loop)
        test = attr.body.outputs[-1] if attr.exits else None
        if attr.is_while and not (self.is_host(loop.inputs[0]) and self.is_host(test)):
            self.reads_back.append(f"the while test at {where}")
        elif attr.exits and not attr.is_while and not self.is_host(test):
            said = test.inputs[0] if test.op is Op.LOGICAL_NOT else test  # the if's own test
            said = said if said.loc else loop
            self.reads_back.append(f"the break test at {_where(said)}")
        bounds = loop.inputs[: attr.heads]
        if not attr.is_while and not all(self.is_host(b) for b in bounds):
            self.reads_back.append(f"the range computed at {where}")

    is_host = HostProgram.on_host  # the same test while the program is planned

    def _outside(self, members: list[Node]) -> list[Node]:
        """What ``members`` read from outside: values of other segments, loop variables and
        carried values, in first-read order."""
        inside = {m.id for m in members}
        seen: dict[int, Node] = {}
        for m in members:
            for x in m.inputs:
                if x.id in inside or x.op in OWN or x.id in self.leaves:
                    continue
                if x.op in (Op.STORE, Op.LOOP, Op.CHECK, Op.SIZE_CHECK):
                    raise _NoForm  # an effect used as a value
                seen.setdefault(x.id, x)
        return list(seen.values())

    def stored_leaves(self) -> tuple[int, ...]:
        """The arguments a store may write (copied back from a GPU, checked writeable)."""
        return written_arguments(self.graph, self.store_targets)

    def _segment(self, members: list[Node]) -> Segment:
        reads = self._outside(members)
        inputs = list(self.graph.inputs)
        rebuilt: dict[int, Node] = {}
        for x in reads:
            rebuilt[x.id] = _stand_in(x, len(inputs), self.is_host(x))
            inputs.append(rebuilt[x.id])

        def sub(node: Node) -> Node:
            return rebuilt.get(node.id, node)

        for m in members:
            rebuilt[m.id] = Node(
                m.op, tuple(sub(i) for i in m.inputs), m.dtype, m.shape, m.attr, m.loc
            )
        effects = [rebuilt[m.id] for m in members if m.op in EVENTS or m.kind is Kind.EFFECT]
        hands_on = tuple(m for m in members if m.id in self.needed and m.op not in EVENTS)
        name = f"{self.graph.name}__s{self.segments}"
        self.segments += 1
        graph = Graph(name, inputs, [rebuilt[m.id] for m in hands_on], effects, self.graph.guards)
        stores = store_region(graph, self.target) if effects else None
        if effects and stores is None:
            raise _NoForm
        self.store_targets += [m.inputs[0] for m in members if m.op is Op.STORE]
        kernels = None if stores else schedule(graph, self.target.supports)
        return Segment(graph, tuple(reads), hands_on, stores, kernels)


def _found(raw: list, kind: type) -> list:
    """The items of ``kind`` at every level of ``raw`` (a loop's or a branch's blocks too)."""
    out = []
    for item in raw:
        if isinstance(item, kind):
            out.append(item)
        elif isinstance(item, tuple):
            for block in item[1:]:
                out += _found(block, kind)
    return out


def _grid(loop: Node) -> list[Node]:
    """An independent loop's body as whole-array statements over its iterations."""
    nodes = vectorize(loop)
    if nodes is None:
        raise _NoForm
    return [n for n in nodes if n.op not in OWN and n.op is not Op.INPUT]


def runtime_index(node: Node) -> bool:
    """An index or a store whose index has run-time values (``x[i]``, ``out[t, :] = u``)."""
    if node.op is Op.INDEX:
        return len(node.inputs) > 1
    return node.op is Op.STORE and len(node.inputs) > 2


def _shifted(item: IndexItem) -> IndexItem:
    """A store's index item as the index of its view: the view's inputs lack the value."""
    if isinstance(item.start, DynIndex):
        return replace(item, start=replace(item.start, input=item.start.input - 1))
    return item


def _where(node: Node) -> str:
    return f"line {node.loc.line}" if node.loc else "a loop"


def _stand_in(node: Node, index: int, host: bool) -> Node:
    """The input a segment reads ``node`` through: a host scalar is a scalar argument, any
    other value an array (a 0-d array for a scalar: it stays on the device)."""
    attr = node.attr if isinstance(node.attr, InputAttr) else None
    name = attr.name if attr is not None else "carried"
    kind = InputKind.SCALAR if host else InputKind.ARRAY
    weak = attr.weak if attr is not None else False
    return Node(Op.INPUT, (), node.dtype, node.shape, InputAttr(index, name, kind, weak), node.loc)
