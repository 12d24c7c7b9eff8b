"""Fills nobody reads: a new array of one value (``np.empty``, which we zero-fill,
``np.zeros``, ``np.full`` and their ``_like`` forms) whose every element a loop nest overwrites
before anything reads it needs no fill; the fill would only cost a pass over memory::

    out = np.empty_like(x)            buffer %0 = copy(%1)         <- not filled
    for i in range(x.shape[0]):       for i in range(0, x_0, 1):
        out[i] = f(x[i])                  store %0[i] = ...

The proof, from the graph's uses of the array (conservative: anything else keeps the fill):
its uses are a nest of loops, one per axis, ``for i in range(0, out.shape[0], 1)`` then
``for j in range(0, out.shape[1], 1)`` ..., none with a ``break``, each the first statement of
its block to use the array (not under an ``if``); in the innermost body one store
``out[i, j] = ...`` (not under an ``if``, so every iteration runs it, unless an error ends the
call and the array with it); reads of that same element after the store; and uses after the
nest. Together the iterations store every element once, each before its own iteration reads
it, and no iteration reads another's.
"""

from __future__ import annotations

from astcompile.ir.attrs import DynIndex, IndexKind
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.ir.shapes import Dim
from astcompile.lower.loop_schedule import Buffer, Schedule, Stmt, Store, UserLoop
from astcompile.lower.structured_plan import StructPlan


def dead_fills(schedule: Schedule) -> frozenset[int]:
    """Ids of the buffers of the region's own level whose fill no one reads."""
    plan, body = schedule.plan, schedule.body
    return frozenset(
        s.node.id
        for s in body
        if isinstance(s, Buffer) and _is_fill(s.node) and _overwritten(plan, s.node, body)
    )


def _is_fill(node: Node) -> bool:
    """A copy of a constant spread over the shape: filling it has no other effect."""
    if node.op is not Op.COPY or not node.shape:
        return False
    spread = node.inputs[0]
    return spread.op is Op.BROADCAST_TO and spread.inputs[0].op is Op.CONST


def _overwritten(plan: StructPlan, buf: Node, body: tuple[Stmt, ...]) -> bool:
    users = plan.consumers.get(buf.id, [])
    nest = _nest(buf, body, {u.id for u in users})
    if nest is None:
        return False
    stores = [s.node for s in nest[-1].body if isinstance(s, Store) and s.target is buf]
    variables = [loop.node.attr.body.inputs[0] for loop in nest]
    if not stores or _elements(stores[0], stores[0].attr.index) != variables:
        return False
    store, level, outer = stores[0], plan.owner[stores[0].id], nest[0].node
    return all(
        u is store
        or any(u is loop.node for loop in nest)
        or (plan.owner[u.id] is level and u.id > store.id and _reads(u) == variables)
        or _top(plan, u).id > outer.id
        for u in users
    )


def _nest(buf: Node, body: tuple[Stmt, ...], users: set[int]) -> list[UserLoop] | None:
    """The loops over each axis of ``buf`` in turn, each the first statement of its block that
    uses ``buf`` (so not under an ``if``) and each over the whole axis."""
    nest: list[UserLoop] = []
    for size in buf.shape:
        loop = next((s for s in body if s.node.id in users), None)  # later: checked as uses
        if not isinstance(loop, UserLoop) or not _whole_range(loop, size):
            return None
        nest.append(loop)
        body = loop.body
    return nest


def _whole_range(loop: UserLoop, size: Dim) -> bool:
    """``for i in range(0, size, 1)`` run to its end (no ``break``)."""
    if loop.is_while or loop.exits or len(loop.bounds) != 3:
        return False
    start, stop, step = loop.bounds
    sized = (stop.op is Op.DIM and stop.attr == size) or _const(stop) == size
    return sized and _const(start) == 0 and _const(step) == 1


def _const(node: Node) -> object:
    return node.attr.value if node.op is Op.CONST else None


def _elements(node: Node, items: tuple) -> list[Node] | None:
    """The run-time indices of ``node`` (a STORE or INDEX) where it picks one element by them."""
    starts = [item.start for item in items if item.kind is IndexKind.INT]
    if len(starts) != len(items) or not all(isinstance(s, DynIndex) for s in starts):
        return None
    return [node.inputs[s.input] for s in starts]


def _reads(node: Node) -> list[Node] | None:
    """``out[i, j]``'s ``[i, j]``, for a read of one element."""
    return _elements(node, node.attr) if node.op is Op.INDEX else None


def _top(plan: StructPlan, node: Node) -> Node:
    """The statement of the region's own level that ``node`` is part of (itself, or the loop
    or branch whose body holds it): their order is the order the C code runs them in."""
    while plan.owner[node.id] is not plan.graph:
        node = plan.parent[id(plan.owner[node.id])]
    return node
