"""NumPy's rules for numbers at the limits of a dtype, as graph nodes.

NumPy 2 (NEP 50) converts a Python int to the dtype of the integer array next to it only when
it fits; otherwise it

* compares exactly: ``uint8_array >= -1`` is all True, ``int64_array < 2**63`` too;
* raises OverflowError in arithmetic and in stores: ``int8_array + 300``, ``u8[0] = 256``.

A *scalar* stored into an integer array goes through Python's int: a float's NaN raises
ValueError, infinity and a (truncated) value outside the dtype raise OverflowError. NumPy does
so for Python numbers always, for NumPy scalars only in element and slice stores into signed
dtypes (into unsigned ones, and by mask or index array, it casts them unsafely). An index
above int64 (``x[np.uint64(2**63)]``) raises OverflowError.

Before::                                  After (``k`` a Python int known at run time)::

    %2 = cast(%k) : uint8                     %2 = ge(%k, 0) ... and(le(%k, 255))
    %3 = add(%x, %2)                           check(%2) OverflowError
                                               %4 = cast(%k) : uint8;  %5 = add(%x, %4)

Constants are decided while tracing (NumPy itself raises there, and the region falls back);
an argument's value class is fixed by its guard (``runtime.guards.int_class``), so a class that
fits needs no check; anything else gets a CHECK node, which both backends raise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.ir.graph import CheckAttr, ConstAttr, Graph, InputKind, Node, ReduceAttr, walk
from astcompile.ir.ops import Op
from astcompile.runtime.guards import int_class_bounds
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.reasons import TraceReason

_I64, _U64, _BOOL = np.dtype(np.int64), np.dtype(np.uint64), np.dtype(bool)
#: ``a OP b`` is ``b MIRROR[OP] a``
_MIRROR = {Op.LT: Op.GT, Op.LE: Op.GE, Op.GT: Op.LT, Op.GE: Op.LE, Op.EQ: Op.EQ, Op.NE: Op.NE}
#: comparisons that hold when the signed side is negative and the other unsigned
_BELOW_HOLDS = frozenset({Op.LT, Op.LE, Op.NE})


def _node(op: Op, inputs: tuple[Node, ...], dtype: np.dtype, attr: Any = None) -> Node:
    shapes = [i.shape for i in inputs]
    shape = max(shapes, key=len)  # callers pass operands of one shape or 0-d ones
    return current().node(op, inputs, dtype, shape, attr)


def _const(value: Any, dtype: np.dtype) -> Node:
    return current().node(Op.CONST, (), dtype, (), ConstAttr(dtype.type(value)))


def _cast(node: Node, dtype: np.dtype) -> Node:
    return node if node.dtype == dtype else _node(Op.CAST, (node,), dtype)


def _as_int(node: Node) -> Node:
    return _cast(node, _I64) if node.dtype.kind == "b" else node


def exact_compare(op: Op, a: Node, b: Node, shape: tuple) -> Node:
    """``a OP b`` on integer (or bool) nodes of any dtypes, exact for every value, as NumPy
    compares them: in a common integer type, or for signed against unsigned 64-bit values by
    the sign first (a negative value is below every unsigned one)."""
    a, b = _as_int(a), _as_int(b)
    common = np.promote_types(a.dtype, b.dtype)
    if common.kind in "iu":
        return current().node(op, (_cast(a, common), _cast(b, common)), _BOOL, shape)
    if a.dtype.kind == "u":
        a, b, op = b, a, _MIRROR[op]
    signed, unsigned = _cast(a, _I64), _cast(b, _U64)
    within = current().node(op, (_cast(signed, _U64), unsigned), _BOOL, shape)
    negative = _node(Op.LT, (signed, _const(0, _I64)), _BOOL)
    if op in _BELOW_HOLDS:
        return current().node(Op.LOGICAL_OR, (negative, within), _BOOL, shape)
    not_negative = _node(Op.LOGICAL_NOT, (negative,), _BOOL)
    return current().node(Op.LOGICAL_AND, (not_negative, within), _BOOL, shape)


def fits(node: Node, dtype: np.dtype) -> Node:
    """A bool node: the integer value of ``node`` lies in ``dtype``'s range."""
    have, want = np.iinfo(node.dtype), np.iinfo(dtype)
    tests = []
    if have.min < want.min:
        tests.append(exact_compare(Op.GE, node, _const(want.min, _I64), node.shape))
    if have.max > want.max:
        top = _I64 if want.max <= np.iinfo(_I64).max else _U64
        tests.append(exact_compare(Op.LE, node, _const(want.max, top), node.shape))
    if not tests:
        return _const(True, _BOOL)
    return tests[0] if len(tests) == 1 else _node(Op.LOGICAL_AND, tuple(tests), _BOOL)


def in_range(value: int, dtype: np.dtype) -> bool:
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def known_to_fit(node: Node, example: Any, dtype: np.dtype) -> bool:
    """Whether every value ``node`` can take fits ``dtype``: a constant's own value, or an
    argument's whole guard class; values computed at run time are never known."""
    if node.op is Op.CONST:
        return in_range(int(node.attr.value), dtype)
    if node.op is Op.INPUT and node.attr.input_kind is InputKind.SCALAR and node.attr.weak:
        low, high = int_class_bounds(int(example))
        return in_range(low, dtype) and in_range(high, dtype)
    return False


def require(ok: Node, exception: str, message: str, *values: Node) -> None:
    """Raise ``exception(message)`` where the 0-d bool ``ok`` is false when the code runs,
    each ``{}`` in ``message`` filled with the run-time int of ``values`` in order."""
    if ok.op is Op.CONST and ok.attr.value:
        return
    ctx = current()
    check = ctx.node(Op.CHECK, (ok, *values), _BOOL, (), CheckAttr(exception, message))
    ctx.add_effect(check)


def power_check(power: Node) -> None:
    """NumPy's ValueError for an integer raised to a negative integer power. A power that is
    read raises in NumPy's own step; one nothing reads (``y = x ** x``, ``y`` unused) would
    vanish with the graph's unread nodes: its check is kept for :func:`keep_unread_checks`."""
    exponent = power.inputs[1]
    if exponent.dtype.kind != "i" or (
        exponent.op is Op.CONST and np.all(np.asarray(exponent.attr.value) >= 0)
    ):
        return
    ctx = current()
    zero = ctx.node(Op.CONST, (), exponent.dtype, (), ConstAttr(exponent.dtype.type(0)))
    if exponent.shape != power.shape:  # checked over the power's elements: none, no error
        exponent = ctx.node(Op.BROADCAST_TO, (exponent,), exponent.dtype, power.shape, power.shape)
    ok = ctx.node(Op.GE, (exponent, zero), _BOOL, power.shape)
    if power.ndim:
        ok = ctx.node(Op.ALL, (ok,), _BOOL, (), ReduceAttr(tuple(range(power.ndim)), False))
    attr = CheckAttr("ValueError", "Integers to negative integer powers are not allowed.")
    frame = ctx.effect_frames[-1]
    ctx.unread_checks.append((power, ctx.node(Op.CHECK, (ok,), _BOOL, (), attr), frame, len(frame)))


def index_check(value: Node, index: Node, size: Any, axis: int, message: str | None) -> None:
    """NumPy's IndexError for ``x[i]`` with ``i`` (an int64 node) known only at run time and
    ``size`` (an int, or the node of a run-time size) the axis's: the index node raises it
    where it is read, one nothing reads (``unused = x[i]``) keeps this check for
    :func:`keep_unread_checks`. ``message``: Python's, where ``x`` holds a list's items.
    Not inside a branch, whose unread values :func:`keep_unread_checks` cannot place."""
    ctx = current()
    if len(ctx.effect_frames) - 1 > ctx.loop_depth:
        return
    known = isinstance(size, int)
    length = _const(size, _I64) if known else size
    above = _node(Op.GE, (_node(Op.ADD, (index, length), _I64), _const(0, _I64)), _BOOL)
    ok = _node(Op.LOGICAL_AND, (above, _node(Op.LT, (index, length), _BOOL)), _BOOL)
    values: tuple[Node, ...] = ()
    if message is None:
        message = f"index {{}} is out of bounds for axis {axis} with size {size if known else '{}'}"
        values = (index,) if known else (index, length)
    check = ctx.node(Op.CHECK, (ok, *values), _BOOL, (), CheckAttr("IndexError", message))
    frame = ctx.effect_frames[-1]
    ctx.unread_checks.append((value, check, frame, len(frame)))


def settle_checks(ctx: Any, frame: list[Node], roots: list[Node] | None) -> None:
    """The checks of ``frame`` (a loop body's effects, traced as often as the loop needs)
    whose value nothing in it or ``roots`` reads go into it where the value was made; the rest
    are done with, all of them where the body's trace failed (``roots`` None)."""
    everything = [*frame, *roots] if roots is not None else []
    read = {id(n) for n in walk(Graph("read", [], everything).nodes())}
    mine = [c for c in ctx.unread_checks if c[2] is frame]
    ctx.unread_checks[:] = [c for c in ctx.unread_checks if c[2] is not frame]
    for value, check, _, position in reversed(mine):
        if roots is not None and id(value) not in read:
            frame.insert(position, check)


def keep_unread_checks(ctx: Any, outputs: list[Node]) -> None:
    """Each check of a value nothing reads goes into the effects where its value was made, so
    the error NumPy raises there is raised, in order. One inside a loop or branch body (whose
    graph is already made) runs the region as written."""
    roots = [*ctx.effect_frames[0], *outputs]
    read = {id(n) for n in walk(Graph("read", [], roots).nodes())}
    for value, check, frame, position in reversed(ctx.unread_checks):
        if id(value) in read:
            continue
        if frame is not ctx.effect_frames[0]:
            raise TraceBreak(TraceReason.NOT_SUPPORTED, "an unread value that may raise")
        frame.insert(position, check)


def require_int_fits(node: Node, example: Any, dtype: np.dtype) -> None:
    """NumPy's OverflowError for a Python int that does not fit the array's dtype. NumPy
    converts it to a C long first for a signed dtype: a uint64 value above that range is
    "too large to convert", not "out of bounds"."""
    if known_to_fit(node, example, dtype):
        return
    if dtype.kind == "i" and node.dtype == _U64:
        require(fits(node, _I64), "OverflowError", "Python int too large to convert to C long")
        if dtype == _I64:
            return
    message = f"Python integer {{}} out of bounds for {dtype}"  # NumPy's, with the value
    require(fits(node, dtype), "OverflowError", message, node)


def require_float_converts(node: Node, dtype: np.dtype) -> None:
    """A float scalar stored into an integer array: Python's ``int()`` errors, then the
    truncated value must lie in ``dtype`` (powers of two bound it, exact in any float)."""
    info = np.iinfo(dtype)
    not_nan = _node(Op.LOGICAL_NOT, (_node(Op.ISNAN, (node,), _BOOL),), _BOOL)
    require(not_nan, "ValueError", "cannot convert float NaN to integer")
    not_inf = _node(Op.LOGICAL_NOT, (_node(Op.ISINF, (node,), _BOOL),), _BOOL)
    require(not_inf, "OverflowError", "cannot convert float infinity to integer")
    whole = _node(Op.TRUNC, (node,), node.dtype)
    require(
        _within(whole, -(2**63), 2**63),
        "OverflowError",
        "Python int too large to convert to C long",
    )
    if info.bits < 64:  # NumPy's message names the int, which now fits an int64
        value = _cast(whole, np.dtype(np.int64))
        message = f"Python integer {{}} out of bounds for {dtype}"
        require(_within(whole, info.min, info.max + 1), "OverflowError", message, value)


def _within(whole: Node, low: int, stop: int) -> Node:
    """``low <= whole < stop`` for a whole float (bounds exact in any float: powers of two
    and small ints)."""
    above = _node(Op.GE, (whole, _const(low, whole.dtype)), _BOOL)
    below = _node(Op.LT, (whole, _const(stop, whole.dtype)), _BOOL)
    return _node(Op.LOGICAL_AND, (above, below), _BOOL)


def index_value(node: Node, clamp: bool) -> Node:
    """An unsigned 64-bit index as int64: an element index above int64 raises NumPy's
    OverflowError; a slice bound is clamped (NumPy clips it to the axis anyway)."""
    if node.dtype != _U64:
        return node
    small = fits(node, _I64)
    if clamp:
        largest = _const(np.iinfo(_I64).max, _U64)
        node = _node(Op.WHERE, (small, node, largest), _U64)
    else:
        require(small, "OverflowError", "Python int too large to convert to C long")
    return _cast(node, _I64)
