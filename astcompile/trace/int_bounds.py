"""Python ints are exact: traced arithmetic on them either provably fits int64 or is checked.

A Python int in a region (an argument, a loop variable, a counter, ``fact *= i``) is computed
as an int64, where Python's int grows without bound. Each ``+ - * << ** abs //`` of Python ints
(not NumPy ints: those wrap, as NumPy does) gets the range of its operands:

- a constant is itself; an argument its guard class (``runtime.guards.int_class_bounds``); a
  size at most the largest NumPy allows for its array (``size * itemsize < 2**63``); a loop
  variable lies between its ``range`` bounds; anything computed at run time (a carried value,
  ``int(x)``) may be any int64.
- Where the result's range fits int64, nothing is added. Otherwise a CHECK tests the operands
  (``i <= MAX - 1`` for ``i + 1``, the sign rule for ``a + b``, a float product for ``a * b``:
  products from 2**62 up are sent to Python, which is exact anyway). A failed check runs the
  region's own statements (RunPlain), which compute the int as Python does; a region that
  stores into arrays cannot run twice, so there it raises OverflowError (the trace is redone
  that way: ``tracer.trace``).

``a / b`` of ints is exact in float64 only up to 2**53 (Python rounds ``int / int`` once, C
converts then divides): larger operands are checked the same way.

    Before::                         After (``r`` carried, ``i`` in ``range(1, n + 1)``)::

        %3 = mul(%r, %i)                 %3 = mul(%r, %i)
                                         %6 = lt(abs(mul(cast(%r), cast(%i))), 2**62)
                                         check(%6) RunPlain
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.checks import RUN_PLAIN
from astcompile.ir.ops import Op
from astcompile.runtime.guards import int_class_bounds
from astcompile.trace import control as C
from astcompile.trace import handlers
from astcompile.trace import int_sums as sums
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymInt, SymScalar, operand

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
FULL = (I64_MIN, I64_MAX)
EXACT_FLOAT = 2**53
_PRODUCT_LIMIT = 2.0**62  # a float product below it is surely an int64 product
_RERUN = "a Python int outgrew int64: the region's statements compute it"
Bounds = tuple[int, int]


@handlers.register
def is_python_int(value: Any) -> bool:
    """A Python ``int``/``bool`` (traced or not), never a NumPy integer."""
    if isinstance(value, SymScalar):
        return type(value.hint) in (int, bool)
    return type(value) in (int, bool) or isinstance(value, SymInt)


def bounds_of(value: Any) -> Bounds:
    """The smallest and largest int ``value`` may be when the compiled code runs."""
    if type(value) in (int, bool):
        return int(value), int(value)
    if isinstance(value, SymInt):
        return dim_bounds(value.dim)
    return getattr(value, "bounds", None) or FULL


def bounds_of_class(value: int) -> Bounds:
    """The range of a Python int argument: what its guard class lets through."""
    return _fit(*int_class_bounds(value))


def _fit(low: int, high: int) -> Bounds:
    return max(low, I64_MIN), min(high, I64_MAX)


@handlers.register
def dim_bounds(d: S.Dim) -> Bounds:
    """A size expression's range: symbols lie within what NumPy allows for their array."""
    if isinstance(d, int):
        return d, d
    if d.op is S.DimOp.SYM:
        return 2, _largest_size(d)
    if d.op is S.DimOp.RUN:
        return 0, I64_MAX
    a, b = (dim_bounds(x) for x in d.args)
    rule = _DIM_RULES.get(d.op)
    return _fit(*rule(a, b)) if rule else FULL


def _largest_size(d: S.SymDim) -> int:
    """NumPy refuses an array whose ``size * itemsize`` passes int64: a float64 axis < 2**60."""
    try:
        leaf = d.source[0] if d.source else None
        itemsize = current().inputs[leaf].dtype.itemsize if leaf is not None else 1
    except (IndexError, RuntimeError):
        itemsize = 1
    return I64_MAX // max(itemsize, 1)


def _corners(fn: Callable[[int, int], int], a: Bounds, b: Bounds) -> Bounds:
    values = [fn(x, y) for x in a for y in b]
    return min(values), max(values)


def _add(a: Bounds, b: Bounds) -> Bounds:
    return a[0] + b[0], a[1] + b[1]


def _sub(a: Bounds, b: Bounds) -> Bounds:
    return a[0] - b[1], a[1] - b[0]


def _mul(a: Bounds, b: Bounds) -> Bounds:
    return _corners(lambda x, y: x * y, a, b)


_DIM_RULES: dict[S.DimOp, Callable[[Bounds, Bounds], Bounds]] = {
    S.DimOp.ADD: _add,
    S.DimOp.SUB: _sub,
    S.DimOp.MUL: _mul,
    S.DimOp.MAX: lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
    S.DimOp.BCAST: lambda a, b: (min(a[0], b[0]), max(a[1], b[1])),
}


def range_bounds(start: Any, stop: Any, step: Any) -> Bounds:
    """Where the variable of ``range(start, stop, step)`` lies while the loop runs."""
    (a_lo, a_hi), (b_lo, b_hi) = bounds_of(start), bounds_of(stop)
    if type(step) is int and step > 0:
        return a_lo, max(a_lo, b_hi - 1)
    if type(step) is int and step < 0:
        return min(a_hi, b_lo + 1), a_hi
    return min(a_lo, b_lo), max(a_hi, b_hi)


@handlers.register
def bounded(value: SymScalar, bounds: Bounds) -> SymScalar:
    value.bounds = bounds
    return value


# -- the checks --------------------------------------------------------------------------------


def _node(op: Op, *args: B.Operand) -> B.Operand:
    return C.node_operand(B.elementwise(op, list(args)))


def _as(value: Any, dtype: type) -> B.Operand:
    return C.node_operand(B.cast(operand(value), np.dtype(dtype)))


def _within(value: Any, low: int, high: int) -> B.Operand | None:
    """``low <= value <= high`` for the sides ``value``'s range does not settle already."""
    have = bounds_of(value)
    tests = []
    if have[0] < low:
        tests.append(_node(Op.GE, _as(value, np.int64), B.const_operand(low)))
    if have[1] > high:
        tests.append(_node(Op.LE, _as(value, np.int64), B.const_operand(high)))
    if len(tests) == 2:
        return _node(Op.LOGICAL_AND, *tests)
    return tests[0] if tests else None


def _sum_ok(op: Op, a: Any, b: Any) -> B.Operand | None:
    """``a + b`` / ``a - b``: against a constant one bound; else the sign rule on the wrapped
    result (it overflowed when it has the sign neither operand, or the minuend, has)."""
    sign = 1 if op is Op.ADD else -1
    if type(b) in (int, bool):
        c = sign * int(b)
        return _within(a, I64_MIN - min(c, 0), I64_MAX - max(c, 0))
    if type(a) in (int, bool) and op is Op.ADD:
        return _sum_ok(op, b, a)
    x, y = _as(a, np.int64), _as(b, np.int64)
    r = _node(op, x, y)  # wraps (-fwrapv in C, NumPy's int64 in the eager target)
    pairs = ((x, r), (y, r)) if op is Op.ADD else ((x, y), (x, r))
    signs = _node(Op.BITWISE_AND, *(_node(Op.BITWISE_XOR, p, q) for p, q in pairs))
    return _node(Op.GE, signs, B.const_operand(0))


def _product_ok(a: Any, b: Any) -> B.Operand | None:
    """``a * c`` against the constant's bounds; else a float product, exact enough far from
    2**63 (a product near it is sent to Python, which is exact anyway)."""
    for x, y in ((a, b), (b, a)):
        if type(y) in (int, bool):
            c = int(y)
            if c == 0:
                return None
            if c > 0:  # MIN <= x * c <= MAX, rounded inwards
                return _within(x, -((-I64_MIN) // c), I64_MAX // c)
            return _within(x, -((-I64_MAX) // c), I64_MIN // c)
    product = _node(Op.MUL, _as(a, np.float64), _as(b, np.float64))
    return _node(Op.LT, _node(Op.ABS, product), B.const_operand(_PRODUCT_LIMIT))


def _shift_ok(a: Any, b: Any) -> B.Operand | None:
    """``b < 63 and (a << b) >> b == a`` (with ``b >= 0`` checked by Python's own rule)."""
    x, y = _as(a, np.int64), _as(b, np.int64)
    same = _node(Op.EQ, _node(Op.RSHIFT, _node(Op.LSHIFT, x, y), y), x)
    return _node(Op.LOGICAL_AND, _node(Op.LT, y, B.const_operand(63)), same)


def _power_ok(a: Any, b: Any) -> B.Operand | None:
    """``|a| <= root``, the largest int whose k-th power fits int64: a float's estimate
    corrected by exact ints (counting up from 1 took 3e9 steps for ``t ** 2``)."""
    k = int(b)
    if k <= 1:
        return None
    root = int(I64_MAX ** (1 / k))
    while k < 63 and (root + 1) ** k <= I64_MAX:  # 2 ** 63 leaves int64 already
        root += 1
    while root**k > I64_MAX:
        root -= 1
    return _within(a, -root, root)


def _quotient_ok(a: Any, b: Any) -> B.Operand | None:
    """``a / b`` is Python's correctly rounded quotient when both convert to float exactly."""
    tests = [t for t in (_within(v, -EXACT_FLOAT, EXACT_FLOAT) for v in (a, b)) if t]
    return _node(Op.LOGICAL_AND, *tests) if len(tests) == 2 else (tests[0] if tests else None)


def _floordiv_ok(a: Any, b: Any) -> B.Operand | None:
    """Only ``-2**63 // -1`` leaves int64."""
    if bounds_of(a)[0] > I64_MIN or not bounds_of(b)[0] <= -1 <= bounds_of(b)[1]:
        return None
    x, y = _as(a, np.int64), _as(b, np.int64)
    not_min = _node(Op.NE, x, B.const_operand(I64_MIN))
    return _node(Op.LOGICAL_OR, not_min, _node(Op.NE, y, B.const_operand(-1)))


def _shift_range(a: Bounds, b: Bounds) -> Bounds:
    if b[0] < 0 or b[1] > 64:
        return I64_MIN * 2, I64_MAX * 2  # a count the check (or Python's error) settles
    return _corners(lambda x, y: x << y, a, b)


def _power_range(a: Bounds, b: Bounds) -> Bounds:
    if not 0 <= b[0] == b[1] < 64:
        return 2 * I64_MIN, 2 * I64_MAX
    values = [a[0] ** b[0], a[1] ** b[0]] + ([0] if a[0] <= 0 <= a[1] else [])
    return min(values), max(values)


#: op -> (the result's range from the operands', the check's condition)
_RULES: dict[Op, tuple[Callable[[Bounds, Bounds], Bounds], Callable[..., B.Operand | None]]] = {
    Op.ADD: (_add, lambda a, b: _sum_ok(Op.ADD, a, b)),
    Op.SUB: (_sub, lambda a, b: _sum_ok(Op.SUB, a, b)),
    Op.MUL: (_mul, _product_ok),
    Op.LSHIFT: (_shift_range, _shift_ok),
    Op.POW: (_power_range, _power_ok),
    Op.FLOORDIV: (lambda a, b: FULL, _floordiv_ok),
}


@handlers.register
def exact(op: Op, a: Any, b: Any, result: SymScalar) -> None:
    """``result = a op b`` on Python ints: give it its range, and check where it may leave
    int64 (or, for ``/``, where the operands may not convert to float exactly)."""
    if op is Op.TRUEDIV:
        _require(_quotient_ok(a, b))
        return
    sums.record(op, a, b, result)
    rule = _RULES.get(op)
    if rule is None:
        return
    low, high = rule[0](bounds_of(a), bounds_of(b))
    if low >= I64_MIN and high <= I64_MAX:
        result.bounds = (low, high)
        return
    _require(rule[1](a, b))
    result.bounds = _fit(low, high)


@handlers.register
def exact_abs(value: SymScalar, result: SymScalar) -> SymScalar:
    """``abs(n)``: only ``-2**63`` has no int64 absolute value."""
    low, high = bounds_of(value)
    _require(_within(value, I64_MIN + 1, I64_MAX))
    low = max(low, I64_MIN + 1)
    if low >= 0:
        return bounded(result, (low, high))
    return bounded(result, (max(0, -high), max(-low, high)) if high > 0 else (-high, -low))


@handlers.register
def beyond_int64(hint: Any) -> None:
    """A traced Python int that already left int64: the region runs as Python."""
    if type(hint) is int and not I64_MIN <= hint <= I64_MAX:
        raise TraceBreak(TraceReason.UNSUPPORTED_SCALAR, "a Python int beyond int64")


def require(ok: Any) -> None:
    """A run-time test that a Python int stayed within int64 (see the module docstring)."""
    _require(C.node_operand(C.truth_node(ok)) if C.is_runtime(ok) else None)


def _require(ok: B.Operand | None) -> None:
    if ok is None:
        return
    C.rerun_on_failure(TraceReason.INT_OVERFLOW, "a Python int that may outgrow int64")
    C.check(SymScalar(ok.node, True, "an int that fits", dynamic=True), RUN_PLAIN, _RERUN)
