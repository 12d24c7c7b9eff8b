"""Loop-carried Python ints that change by little each iteration: their range, without checks.

A counter (``it += 1``, ``if ok: k += 1``, ``n -= 2``) carried by a loop is, to the tracer,
any int64: trace/int_bounds.py would check every ``+ 1`` on it. But a value that starts within
2**62 of zero and moves by at most ``STEP`` per executed iteration cannot leave int64 before
2**52 iterations have run, which takes days even for an empty compiled loop. So each carried
Python int is traced first as such a counter (its range widened by ``DRIFT`` around its start);
after the body's trace, a slot whose new value is not its old one plus or minus at most
``STEP`` (through ``if`` branches too), or a constant within its start's range, is traced again
as any int64. Nested loops add their drifts: still far from 2**63 for any real nesting. An
outer loop's counter may be stepped inside an inner loop (``changes += 1`` four loops deep):
the inner loop's result then counts as a small step too, since every iteration it ran is one
of the nest's 2**52.
"""

from __future__ import annotations

from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.trace import int_bounds as IB
from astcompile.trace.symbolic import SymScalar

STEP = 2**8  # the most a counter may move per iteration
DRIFT = 2**60  # STEP times 2**52 iterations
_START_LIMIT = 2**62
Offset = tuple[int, int]


def starts(init: tuple) -> dict[int, IB.Bounds]:
    """The Python int slots of a loop's carried values whose start is small enough, with the
    start's range."""
    found = {}
    for position, value in enumerate(init):
        if IB.is_python_int(value) and not isinstance(value, bool):
            low, high = IB.bounds_of(value)
            if low >= -_START_LIMIT and high <= _START_LIMIT:
                found[position] = (low, high)
    return found


def assume(holders: list, counters: dict[int, IB.Bounds]) -> None:
    """Give each counter's placeholder its range: the start's, widened by DRIFT."""
    for position, (low, high) in counters.items():
        holder = holders[position]
        if isinstance(holder, SymScalar):
            IB.bounded(holder, (low - DRIFT, high + DRIFT))


def verified(holders: list, outs: tuple, counters: dict[int, IB.Bounds]) -> dict:
    """The counters whose new value steps by little from the old one: the others are traced
    again without the assumption."""
    kept = {}
    for position, start in counters.items():
        holder, out = holders[position], outs[position]
        if not isinstance(holder, SymScalar):
            continue
        if type(out) is int:
            ok = start[0] <= out <= start[1]
        else:
            offset = isinstance(out, SymScalar) and _offset(out.node, holder.node, start)
            ok = bool(offset) and max(abs(offset[0]), abs(offset[1])) <= STEP
        if ok:
            kept[position] = start
    return kept


def _offset(node: Node, holder: Node, start: IB.Bounds) -> Offset | None:
    """How far ``node`` is from ``holder`` (None when it is not a small step from it)."""
    if node is holder:
        return 0, 0
    if node.op is Op.CONST:  # a reset to a value the counter may start from
        value = node.attr.value
        return (0, 0) if start[0] <= int(value) <= start[1] else None
    if node.op is Op.CAST and node.inputs[0].dtype == node.dtype:
        return _offset(node.inputs[0], holder, start)
    if node.op in (Op.ADD, Op.SUB):
        return _step(node, holder, start)
    if node.op is Op.RESULT and node.inputs[0].op is Op.LOOP:
        return _through_loop(node, holder, start)
    if node.op is Op.RESULT and node.inputs[0].op is Op.IF:
        branches = (node.inputs[0].attr.then_graph, node.inputs[0].attr.else_graph)
        found = [_offset(g.outputs[node.attr], holder, start) for g in branches]
        if None in found:
            return None
        return min(f[0] for f in found), max(f[1] for f in found)
    return None


def _step(node: Node, holder: Node, start: IB.Bounds) -> Offset | None:
    a, b = node.inputs
    sign = 1 if node.op is Op.ADD else -1
    if b.op is Op.CONST:
        inner, c = _offset(a, holder, start), sign * int(b.attr.value)
    elif a.op is Op.CONST and node.op is Op.ADD:
        inner, c = _offset(b, holder, start), int(a.attr.value)
    else:
        return None
    return None if inner is None else (inner[0] + c, inner[1] + c)


def _through_loop(node: Node, holder: Node, start: IB.Bounds) -> Offset | None:
    """A nested loop's result is its start moved by at most STEP per iteration it ran, when
    its own body steps the value by little: those iterations count among the 2**52 that DRIFT
    allows the whole nest, so the result is as far from ``holder`` as the loop's start is."""
    loop, k = node.inputs[0], node.attr
    attr = loop.attr
    inner = _offset(attr.body.outputs[k], attr.holders[k], start)
    if inner is None or max(abs(inner[0]), abs(inner[1])) > STEP:
        return None
    return _offset(loop.inputs[attr.heads + k], holder, start)
