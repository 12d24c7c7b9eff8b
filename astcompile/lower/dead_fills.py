"""Fills nobody reads: a new 1-D array of one value (``np.empty``, which we zero-fill,
``np.zeros``, ``np.full`` and their ``_like`` forms) whose every element a loop overwrites
before anything reads it needs no fill; the fill would only cost a pass over memory::

    out = np.empty_like(x)            buffer %0 = copy(%1)         <- not filled
    for i in range(x.shape[0]):       for i in range(0, x_0, 1):
        out[i] = f(x[i])                  store %0[i] = ...

The proof, from the graph's uses of the array (conservative: anything else keeps the fill):
its uses are the loop, one store ``out[i] = ...`` at the top of the loop body (not under an
``if``, so every iteration runs it, unless an error ends the call and the array with it), reads
of that same element ``out[i]`` after the store, and uses after the loop; the loop is a
``for i in range(0, len(out), 1)`` without ``break``. Together the iterations store every element
once, each before its own iteration reads it, and no iteration reads another's.
"""

from __future__ import annotations

from astcompile.ir.attrs import DynIndex, IndexKind
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.lower.loop_schedule import Buffer, Schedule, Store, UserLoop
from astcompile.lower.structured_plan import StructPlan


def dead_fills(schedule: Schedule) -> frozenset[int]:
    """Ids of the buffers of the region's own level whose fill no one reads."""
    plan, body = schedule.plan, schedule.body
    loops = {s.node.id: s for s in body if isinstance(s, UserLoop)}
    return frozenset(
        s.node.id
        for s in body
        if isinstance(s, Buffer) and _is_fill(s.node) and _overwritten(plan, s.node, loops)
    )


def _is_fill(node: Node) -> bool:
    """A 1-D copy of a constant spread over the shape: filling it has no other effect."""
    if node.op is not Op.COPY or len(node.shape) != 1:
        return False
    spread = node.inputs[0]
    return spread.op is Op.BROADCAST_TO and spread.inputs[0].op is Op.CONST


def _overwritten(plan: StructPlan, buf: Node, loops: dict[int, UserLoop]) -> bool:
    users = plan.consumers.get(buf.id, [])
    found = [loops.get(u.id) for u in users if u.op is Op.LOOP]
    if len(found) != 1 or found[0] is None or not _whole_range(found[0], buf):
        return False
    loop, var = found[0], found[0].node.attr.body.inputs[0]
    stores = [s.node for s in loop.body if isinstance(s, Store) and s.target is buf]
    if not stores or _element(stores[0], stores[0].attr.index) is not var:
        return False
    store, level = stores[0], plan.owner[stores[0].id]
    return all(
        u is loop.node
        or u is store
        or (plan.owner[u.id] is level and u.id > store.id and _reads(u) is var)
        or _top(plan, u).id > loop.node.id
        for u in users
    )


def _whole_range(loop: UserLoop, buf: Node) -> bool:
    """``for i in range(0, len(buf), 1)`` run to its end (no ``break``)."""
    if loop.is_while or loop.exits or len(loop.bounds) != 3:
        return False
    start, stop, step = loop.bounds
    size = buf.shape[0]
    sized = (stop.op is Op.DIM and stop.attr == size) or _const(stop) == size
    return sized and _const(start) == 0 and _const(step) == 1


def _const(node: Node) -> object:
    return node.attr.value if node.op is Op.CONST else None


def _element(node: Node, items: tuple) -> Node | None:
    """The run-time index of ``node`` (a STORE or INDEX) where it picks one element by it."""
    if len(items) != 1 or items[0].kind is not IndexKind.INT:
        return None
    start = items[0].start
    return node.inputs[start.input] if isinstance(start, DynIndex) else None


def _reads(node: Node) -> Node | None:
    """``out[i]``'s ``i``, for a read of one element."""
    return _element(node, node.attr) if node.op is Op.INDEX else None


def _top(plan: StructPlan, node: Node) -> Node:
    """The statement of the region's own level that ``node`` is part of (itself, or the loop
    or branch whose body holds it): their order is the order the C code runs them in."""
    while plan.owner[node.id] is not plan.graph:
        node = plan.parent[id(plan.owner[node.id])]
    return node
