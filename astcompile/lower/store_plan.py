"""Stores into views as phases, target-free: ``out[1:-1] = expr``, ``x[:, 0] = v``, ``a[::2] += b``.

A region whose only effects are stores and checks (no loop, no branch, no run-time index) runs
as *phases*: flat graphs of fused kernels (as any flat region), each followed by the stores
that may run once it is done, in program order. The Triton target plans its ``stores`` form
so: its store kernels (``targets/triton/store_kernels.py``) write each value through the
view's own pointer and strides: nothing is copied on the host, and the caller's array is the
one written.

Each value gets an *epoch*: how many stores must have run before it is computed. A read of a
stored array (through any view) comes after the stores into that array that precede it in the
program and before those that follow; a value comes after what it reads. Phase ``k`` computes
the values of epoch ``k`` over the arguments and what earlier phases handed on, then runs
store ``k`` (and the following stores, while no value needs to run between them):

    out[1:-1] = x[1:-1] * 2.0        # phase 0: t = x[1:-1] * 2.0; store 0: out[1:-1] <- t
    y = out + 1                      # phase 1: y = out + 1;        store 1: out[:, 0] <- 5
    out[:, 0] = 5
    return y, out.sum()              # phase 2: out.sum()

A check (``assert``, NumPy's own errors such as ``np.average``'s zero weights) is an event
like a store: it raises after the stores before it and before those after it.

Any two arguments may share memory (``f(x, x[1:])``), so a store into one orders the reads of
all; an array the region made is its own. A reshape of a stored array that a later store
writes (a view or a copy, by layout), or a store Triton has no rule for (a run-time index, a
complex value, a cast the target's ``supports`` refuses), has no phases: :func:`store_region`
says None (on Triton the region runs on the C target, as a loop region does).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from astcompile.ir.attrs import DynIndex, IndexKind, InputAttr, InputKind
from astcompile.ir.graph import Graph, Node
from astcompile.ir.ops import Kind, Op, info
from astcompile.passes.schedule import Schedule, schedule

if TYPE_CHECKING:
    from astcompile.targets.base import Target

#: Views a store may write through (each a NumPy view of its input, never a copy).
TARGET_VIEWS = frozenset({Op.INDEX, Op.TRANSPOSE})

#: Index items a store kernel's view is made of (a run-time slice needs the loop's index).
STATIC_ITEMS = frozenset({IndexKind.SLICE, IndexKind.INT, IndexKind.NEWAXIS})
#: Views of a stored array that stay views whatever its layout (a reshape may copy).
ALIAS_VIEWS = TARGET_VIEWS | {Op.BROADCAST_TO}
#: The memory of every argument: a store into one may change what any other reads.
ARGUMENTS = -1
#: The effects a store region runs between its phases, in program order: stores, and checks
#: (``assert``, NumPy's errors) that raise there, after the stores before them.
EVENTS = frozenset({Op.STORE, Op.CHECK})
#: Nodes every phase's wrapper makes itself (leaves, constants, sizes).
OWN = frozenset({Op.INPUT, Op.CONST, Op.DIM})


@dataclass(frozen=True)
class Tail:
    """A store as the phase running it sees it: its value and the array written."""

    store: Node  #: a STORE, or a CHECK (then ``value`` is what it tests, ``base`` None)
    value: Node
    base: Node | None
    overlaps: bool  #: the value is a view of the array written: copied before the store


@dataclass(frozen=True)
class Phase:
    graph: Graph  #: inputs: the region's, then what earlier phases handed on
    tail: tuple[Tail, ...]  #: the stores run after its kernels, in program order
    hands_on: int  #: its first outputs, returned (the last phase: the region's outputs)
    kernels: Schedule | None = None  #: its graph's kernels (a target's stages may rewrite them)


@dataclass(frozen=True)
class StoreRegion:
    name: str  #: the region's graph
    phases: tuple[Phase, ...]
    stored_leaves: tuple[int, ...]  #: leaf indices of the arrays written (copied back from a GPU)

    def parts(self) -> list[tuple[Graph, Schedule | None]]:
        """Its phases' graphs and kernels: the stage runner verifies the graphs, a target's
        stages may rewrite the kernels (in place)."""
        return [(p.graph, p.kernels) for p in self.phases]

    def __str__(self) -> str:
        """Its phases in program order, each with the events run after its kernels."""
        return "\n".join(
            f"{p.graph}\n    then {', '.join(f'{t.store.op.name.lower()} {t.store!r}' for t in p.tail)}"
            for p in self.phases
        )


def base_of(store: Node) -> Node:
    """The array a (lowerable) store writes: an argument, or an array the region made."""
    return (_chain(store.inputs[0]) or [store.inputs[0]])[-1]


def _chain(target: Node) -> list[Node] | None:
    """The views from a store's target down to the array it writes, or None: an input, or a
    fresh array of the region (``out = np.zeros_like(x)``: a buffer of its own each call)."""
    chain = []
    while target.op in TARGET_VIEWS and len(target.inputs) == 1:
        chain.append(target)
        target = target.inputs[0]
    return [*chain, target] if target.op is Op.INPUT or info(target.op).fresh else None


def _static(items: tuple) -> bool:
    return all(i.kind in STATIC_ITEMS and not isinstance(i.start, DynIndex) for i in items)


def _castable(value: Node, view: Node, target: Target) -> bool:
    """Whether ``target`` stores ``value`` into ``view`` (its dtype: NumPy's assignment casts)."""
    return target.supports(Node(Op.CAST, (value,), view.dtype, value.shape, None, None, -1))


def _value(event: Node) -> Node:
    return event.inputs[1] if event.op is Op.STORE else event.inputs[0]


def _reads(event: Node) -> tuple[Node, ...]:
    return (event.inputs[1], base_of(event)) if event.op is Op.STORE else event.inputs


def _lowerable(store: Node, target: Target) -> bool:
    if store.op is Op.CHECK:
        return len(store.inputs) == 1
    if store.op is not Op.STORE or len(store.inputs) != 2:
        return False
    chain = _chain(store.inputs[0])
    return (
        chain is not None
        and all(n.op is not Op.INDEX or _static(n.attr) for n in chain[:-1])
        and _static(store.attr.index)
        and _castable(store.inputs[1], store.inputs[0], target)
    )


def _memory(node: Node) -> int:
    """What a write into ``node`` may change: a new array only itself; any argument any other
    (two arguments may be views of one array: ``f(x, x[1:])``)."""
    return ARGUMENTS if node.op is Op.INPUT else node.id


def _is_view(node: Node) -> bool:
    """A view that reads nothing when made (``x[3, 1]`` is a scalar read there and then)."""
    if node.op is Op.INDEX:
        return any(item.kind is not IndexKind.INT for item in node.attr)
    return node.op in ALIAS_VIEWS


def _epochs(nodes: list[Node], stores: list[Node]) -> tuple[dict[int, int], dict] | None:
    """(node id -> its epoch, node id -> the memory it is a view of), or None."""
    into: dict[int, list[int]] = {}  # memory -> ids of the stores into it
    for s in stores:
        if s.op is Op.STORE:
            into.setdefault(_memory(base_of(s)), []).append(s.id)
    order = [s.id for s in stores]
    arrays = [n for n in nodes if n.op is Op.INPUT and n.attr.input_kind is InputKind.ARRAY]
    alias = {n.id: _memory(n) for n in arrays if ARGUMENTS in into}
    alias.update({m: m for m in into if m != ARGUMENTS})  # the arrays the region made
    epoch: dict[int, int] = {}
    for node in sorted(nodes, key=lambda n: n.id):
        if node.op in EVENTS:
            if epoch.get(_value(node).id, 0) > order.index(node.id):
                return None
            continue
        low = max((epoch.get(i.id, 0) for i in node.inputs), default=0)
        high = len(stores)
        bases = {alias[i.id] for i in node.inputs if i.id in alias}
        memory = next(iter(bases)) if bases else None
        if memory is not None and _is_view(node):
            alias[node.id] = memory
            bases = set()  # a view reads nothing when made: its readers are placed
        elif memory is not None and node.kind is Kind.VIEW and node.op is not Op.INDEX:
            if into[memory][-1] > node.id:
                return None  # a reshape is a view or a copy by layout: no store may follow
            alias[node.id] = memory  # read here, and a view its readers read later
        for b in bases:
            k = bisect.bisect(into[b], node.id)  # stores into b before the node
            low = max(low, order.index(into[b][k - 1]) + 1 if k else 0)
            high = min(high, order.index(into[b][k]) if k < len(into[b]) else high)
        if low > high:
            return None
        epoch[node.id] = low
    return epoch, alias


def store_region(graph: Graph, target: Target) -> StoreRegion | None:
    """``graph`` as phases of kernels and stores, when ``target`` can lower it so."""
    nodes = graph.nodes()
    if any(n.kind is Kind.CONTROL or (n.op is Op.INDEX and len(n.inputs) > 1) for n in nodes):
        return None  # a loop, a branch or a run-time index
    stores = sorted(graph.effects, key=lambda n: n.id)
    if not stores or not all(_lowerable(s, target) for s in stores):
        return None
    placed = _epochs(nodes, stores)
    if placed is None:
        return None
    phases = _Phases(graph, nodes, stores, *placed).build()
    phases = tuple(replace(p, kernels=schedule(p.graph, target.supports)) for p in phases)
    bases = [base_of(s) for s in stores if s.op is Op.STORE]
    leaves = {b.attr.index for b in bases if b.op is Op.INPUT}
    return StoreRegion(graph.name, phases, tuple(sorted(leaves)))


class _Phases:
    """The phases of a store region: each epoch that computes something starts one."""

    def __init__(self, graph: Graph, nodes: list[Node], stores: list[Node], epoch, alias) -> None:
        self.graph, self.stores, self.alias = graph, stores, alias
        self.members = [n for n in nodes if n.op not in OWN and n.op not in EVENTS]
        self.starts = sorted({epoch[n.id] for n in self.members} | {0})
        self.phase = {n.id: bisect.bisect(self.starts, epoch[n.id]) - 1 for n in self.members}
        self.stand_ins: dict[int, Node] = {}
        self.later = self._handed_on()

    def _tail(self, i: int) -> list[Node]:
        end = self.starts[i + 1] if i + 1 < len(self.starts) else len(self.stores)
        return self.stores[self.starts[i] : end]

    def _handed_on(self) -> set[int]:
        """The values a later phase (or the region's return) needs."""
        uses = [(n, self.phase[n.id]) for n in self.members]
        for i in range(len(self.starts)):
            uses += [(s, i) for s in self._tail(i)]
        later = {
            x.id
            for node, i in uses
            for x in (_reads(node) if node.op in EVENTS else node.inputs)
            if x.op not in OWN and self.phase[x.id] < i
        }
        last = len(self.starts) - 1
        return later | {o.id for o in self.graph.outputs if self.phase.get(o.id, last) < last}

    def _overlaps(self, store: Node) -> bool:
        if store.op is not Op.STORE:
            return False
        return self.alias.get(store.inputs[1].id) == _memory(base_of(store))

    def build(self) -> tuple[Phase, ...]:
        return tuple(self._build(i) for i in range(len(self.starts)))

    def _build(self, i: int) -> Phase:
        rebuilt: dict[int, Node] = {}

        def sub(node: Node) -> Node:
            return node if node.op in OWN else rebuilt.get(node.id) or self.stand_ins[node.id]

        for n in self.members:
            if self.phase[n.id] == i:
                rebuilt[n.id] = Node(
                    n.op, tuple(sub(x) for x in n.inputs), n.dtype, n.shape, n.attr, n.loc
                )
        tail = [
            Tail(
                s, sub(_value(s)), sub(base_of(s)) if s.op is Op.STORE else None, self._overlaps(s)
            )
            for s in self._tail(i)
        ]
        last = i == len(self.starts) - 1
        kept = [n for n in self.members if n.id in self.later and n.id in rebuilt]
        handed = [sub(o) for o in self.graph.outputs] if last else [rebuilt[n.id] for n in kept]
        inputs = [*self.graph.inputs, *self.stand_ins.values()]
        name = self.graph.name if len(self.starts) == 1 else f"{self.graph.name}__p{i}"
        outputs = [*handed, *(v for t in tail for v in (t.value, t.base) if v is not None)]
        phase = Phase(Graph(name, inputs, outputs, [], self.graph.guards), tuple(tail), len(handed))
        for n in kept:  # what the next phases see in its place
            attr = InputAttr(
                len(self.graph.inputs) + len(self.stand_ins), "carried", InputKind.ARRAY
            )
            self.stand_ins[n.id] = Node(Op.INPUT, (), n.dtype, n.shape, attr, n.loc)
        return phase
