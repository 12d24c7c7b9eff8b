"""Python's scalar functions on values known only at run time (loop variables, elements).

``math.sqrt(x)``, ``int(x)``, ``round(x)``, ``min(a, b)``... call ``float(x)`` or compare,
which a traced loop value cannot answer. Region bodies call them as ``__ac_scalar(func, *args)``
(frontend/lowering_parts.py); for a run-time argument the table below builds the graph with
Python's exact semantics, and anything else calls ``func`` itself:

* results have Python's types: ``math.*`` gives a float, ``int``/``round``/``math.floor`` an
  int, ``min``/``max`` one of their arguments (so they must share a type);
* ``round`` rounds half to even (C ``rint``), ``int`` truncates;
* Python's errors become CHECKs (trace/control.py): ``math.sqrt(-1)`` raises ValueError("math
  domain error"), ``math.exp(1000)`` OverflowError, ``int(nan)`` ValueError, ``a // 0``
  ZeroDivisionError — in compiled code too.

An int result beyond int64 is Python's too: trace/int_bounds.py checks it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir.checks import RUN_PLAIN
from astcompile.ir.ops import Op
from astcompile.trace import control as C
from astcompile.trace import handlers, int_bounds, optionals, pycomplex, scalar_identity, unions
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak
from astcompile.trace.reasons import TraceReason
from astcompile.trace.sym_numbers import SymInt
from astcompile.trace.symbolic import (
    SymArray,
    SymScalar,
    apply_elementwise,
    is_union,
    operand,
    plain,
    wrap,
)

_F64, _I64 = np.dtype(np.float64), np.dtype(np.int64)
_INT_LIMIT = 2.0**63


def ac_scalar(func: Callable, *args: Any) -> Any:
    """``func(*args)``, traced when an argument is a run-time value and ``func`` is known."""
    args = optionals.numbers(args)  # a variable that may be None: where a test shows it is not
    if scalar_identity.returns_itself(func, args):
        return args[0]
    try:
        handler = HANDLERS.get(func)
    except TypeError:  # an unhashable callable: not one of ours
        handler = None
    if handler is None or not any(C.is_runtime(a) for a in args):
        return func(*args)
    if any(isinstance(a, SymArray) and (a.ndim or _numpy_complex(func, a)) for a in args):
        return func(*args)  # arrays, complex values: NumPy's own behaviour (or a break)
    return handler(*args)


def ac_item(table: Any, index: Any) -> Any:
    """``table[index]`` of a literal tuple of numbers, or of equal-length tuples of numbers
    (frontend/lowering_parts.literal_tables), at an int known only at run time: a select per
    entry, with Python's negative indices and IndexError. Anything else is indexed as written
    (a loop value as an index then breaks the trace, as before)."""
    if type(table) is not tuple or not C.is_runtime(index) or _kind(index) is not int:
        return table[index]
    rows = all(type(r) is tuple and len(r) == len(table[0]) for r in table)
    columns = list(zip(*table)) if rows else [table]
    kinds = [{type(v) for v in column} for column in columns]
    if not columns or any(len(k) != 1 or k - {int, float} for k in kinds):
        return table[index]  # mixed types: the item's type depends on the index
    n = len(table)
    i = apply_elementwise(Op.WHERE, index < 0, index + n, index)
    _ok(i >= 0, "IndexError", "tuple index out of range")
    _ok(i < n, "IndexError", "tuple index out of range")
    picked = []
    for column, (kind,) in zip(columns, kinds):
        value = column[-1]
        for k in range(n - 2, -1, -1):
            value = apply_elementwise(Op.WHERE, i == k, column[k], value)
        picked.append(_py(operand(value).node, kind))
    return tuple(picked) if rows else picked[0]


def _numpy_complex(func: Callable, value: SymArray) -> bool:
    """A NumPy complex scalar where NumPy, not Python, decides (``abs(z[i])`` is NumPy's
    abs); ``complex()`` and ``cmath`` take its value as a Python complex."""
    return value.dtype.kind == "c" and func not in pycomplex.HANDLERS


# -- values ----------------------------------------------------------------------------------


_py = pycomplex.runtime  # a Python scalar of a given type computed at run time


def _kind(value: Any) -> type:
    """The Python type a value acts as: bool, int, float or complex (NumPy scalars by their
    kind)."""
    if isinstance(value, SymScalar):
        return type(value.hint)
    if isinstance(value, SymInt):  # a size: ``min(i + r + 1, x.shape[0])``
        return int
    dtype = value.dtype if isinstance(value, (SymArray, np.generic)) else np.result_type(value)
    if dtype.kind not in "biufc":
        raise TraceBreak(TraceReason.UNSUPPORTED_SCALAR, f"a {dtype} value in a scalar function")
    return {"b": bool, "f": float, "c": complex}.get(dtype.kind, int)


def _float(value: Any) -> SymScalar:
    """``float(value)``: of a complex number, Python's TypeError (raised by the plain code)."""
    if pycomplex.is_complex(value):
        raise TraceBreak(TraceReason.UNSUPPORTED_SCALAR, "a complex number where a real is needed")
    return _py(operand(plain(value)).node, float)  # a union's value is the same either way


def _ok(value: Any, exception: str, message: str) -> None:
    C.check(value, exception, message)


# -- math ------------------------------------------------------------------------------------


def _unary(op: Op, domain: Callable | None = None, overflow: bool = False) -> Callable:
    def handler(x: Any) -> Any:
        x = _float(x)
        if domain is not None:
            _ok(C.negate(domain(x)), "ValueError", "math domain error")
        result = _py(apply_elementwise(op, x).node, float)
        if overflow:
            _ok(C.negate(_overflowed(result, x)), "OverflowError", "math range error")
        return result

    return handler


def _overflowed(result: Any, *args: Any) -> Any:
    """An infinite result from finite arguments (Python raises OverflowError)."""
    test = abs(result) == math.inf
    for a in args:
        test = _and(test, abs(a) != math.inf)
    return test


def _and(a: Any, b: Any) -> Any:
    node = B.elementwise(Op.LOGICAL_AND, [operand(a), operand(b)])
    return SymScalar(node, True, "a test", dynamic=True)


def _or(a: Any, b: Any) -> Any:
    node = B.elementwise(Op.LOGICAL_OR, [operand(a), operand(b)])
    return SymScalar(node, True, "a test", dynamic=True)


def _binary(op: Op, overflow: bool = False) -> Callable:
    def handler(a: Any, b: Any) -> Any:
        a, b = _float(a), _float(b)
        result = _py(apply_elementwise(op, a, b).node, float)
        if overflow:
            _ok(C.negate(_overflowed(result, a, b)), "OverflowError", "math range error")
        return result

    return handler


def _pow(a: Any, b: Any) -> Any:
    a, b = _float(a), _float(b)
    zero_neg = _and(a == 0.0, b < 0.0)
    fraction = _and(_and(a < 0.0, abs(a) != math.inf), _and(abs(b) != math.inf, _floor(b) != b))
    _ok(C.negate(_or(zero_neg, fraction)), "ValueError", "math domain error")
    result = _py(apply_elementwise(Op.POW, a, b).node, float)
    _ok(C.negate(_overflowed(result, a, b)), "OverflowError", "math range error")
    return result


def _floor(x: SymScalar) -> SymScalar:
    return _py(apply_elementwise(Op.FLOOR, x).node, float)


def _predicate(op: Op) -> Callable:
    return lambda x: _py(apply_elementwise(op, _float(x)).node, bool)


def _to_int(op: Op | None) -> Callable:
    """``int``/``round``/``math.floor``/``math.ceil``/``math.trunc``: ints pass, floats are
    rounded by ``op`` and must be finite and fit in int64."""

    def handler(x: Any) -> Any:
        kind = _kind(x)
        if kind is complex:  # Python's TypeError, raised by the plain code
            raise TraceBreak(TraceReason.UNSUPPORTED_SCALAR, "a complex number rounded to an int")
        if kind is not float:
            return _py(operand(x).node, int)
        x = _float(x)
        _ok(x == x, "ValueError", "cannot convert float NaN to integer")
        _ok(abs(x) != math.inf, "OverflowError", "cannot convert float infinity to integer")
        rounded = apply_elementwise(op, x) if op is not None else x
        value = _py(operand(rounded).node, float)
        int_bounds.require(abs(value) < _INT_LIMIT)  # Python's int grows: see int_bounds
        return _py(B.elementwise(Op.TRUNC, [operand(value)]), int)

    return handler


def _extreme(pick: str) -> Callable:
    """``min(a, b, ...)``/``max``: Python keeps the first argument unless a later one is
    strictly smaller (larger), so NaN handling follows argument order, as in Python."""

    def handler(*args: Any) -> Any:
        if len(args) < 2:
            raise TraceBreak(TraceReason.MIN_MAX_ONE_ARGUMENT, f"{pick}() over an iterable")
        if any(map(is_union, args)) and _float_twins(args):
            return _union_extreme(pick, args)
        kinds = {(_kind(a), isinstance(a, SymArray)) for a in args}
        if len(kinds) != 1 or len({operand(a).node.dtype for a in args if C.is_runtime(a)}) > 1:
            if _float_twins(args):
                return _union_extreme(pick, args)
            raise TraceBreak(
                TraceReason.MIN_MAX_MIXED_TYPES,
                f"{pick}() of values of different types returns a value-dependent type",
            )
        best = args[0]
        for other in args[1:]:
            better = other < best if pick == "min" else other > best
            best = apply_elementwise(Op.WHERE, better, other, best)
        kind, numpy = kinds.pop()
        if not numpy:
            return _py(best.node, kind)
        # Python returns one of the arguments: a NumPy scalar when they all are
        scalars = all(getattr(a, "is_scalar", False) for a in args if isinstance(a, SymArray))
        return wrap(best.node, is_scalar=scalars) if isinstance(best, SymArray) else best

    return handler


def _float_twins(args: tuple) -> bool:
    """Python floats mixed with NumPy float64 scalars (``max(0.1, tol / err)`` where ``err``
    came from an array): the value Python returns is the same either way, only its type is
    that of the argument picked."""
    twin = np.dtype(np.float64)
    for a in args:
        if isinstance(a, SymArray) and not (a.is_scalar and a.dtype == twin):
            return False
        if not isinstance(a, SymArray) and _kind(a) is not float:
            return False
    return True


def _union_extreme(pick: str, args: tuple) -> Any:
    """``min``/``max`` of :func:`_float_twins`: the value picked as Python picks it, and a
    flag "it is the Python float" picked alongside, which makes it a union (trace/unions.py:
    its type follows the flag where it is returned or stored)."""
    best, flag = plain(args[0]), _is_python(args[0])
    for other in args[1:]:
        value = plain(other)
        better = value < best if pick == "min" else value > best
        best = apply_elementwise(Op.WHERE, better, value, best)
        flag = apply_elementwise(Op.WHERE, better, _is_python(other), flag)
    return unions.make(best, float, flag)


def _is_python(value: Any) -> Any:
    if is_union(value):
        return value.python[1]
    return wrap(B.const_operand(np.bool_(not isinstance(value, SymArray))).node, is_scalar=True)


def _abs(x: Any) -> Any:
    kind = _kind(x)
    if kind is complex:
        return pycomplex.absolute(x)
    return _py(operand(x).node, int) if kind is bool else abs(x)


def _divmod(a: Any, b: Any) -> tuple:
    """``divmod(a, b)`` is ``(a // b, a % b)`` for Python's numbers and NumPy's; only the
    errors differ: Python's float division by zero says "float divmod()", and NumPy warns
    "in divmod" (a NumPy divisor that may be zero runs as written)."""
    kinds = (_kind(a), _kind(b))
    if complex in kinds:  # Python's TypeError, raised by the plain code
        raise TraceBreak(TraceReason.UNSUPPORTED_SCALAR, "divmod() of a complex number")
    maybe_zero = C.is_runtime(b) or b == 0
    if maybe_zero and any(isinstance(v, (SymArray, np.generic)) for v in (a, b)):
        raise TraceBreak(TraceReason.UNSUPPORTED_SCALAR, "divmod() of NumPy values by a variable")
    if maybe_zero and float in kinds:
        _ok(b != 0 if C.is_runtime(b) else C.never(), "ZeroDivisionError", "float divmod()")
    return a // b, a % b


def _round(x: Any, ndigits: Any = None) -> Any:
    if ndigits is not None:
        raise TraceBreak(TraceReason.ROUND_DIGITS, "round(x, ndigits) on a loop value")
    return _to_int(Op.RINT)(x)


@handlers.register
def python_arith(op: Op, fn: Callable, a: Any, b: Any) -> None:
    """Python's rules for ``a op b`` on Python scalars where one varies at run time: division
    by zero raises ZeroDivisionError (with Python's message), and a power must not turn
    complex or fractional (``(-8.0) ** 0.5``, ``2 ** -1``): those run in Python (a float to
    an int power, ``gamma ** t``, cannot)."""
    if op is Op.POW and _fractional_power(a, b):
        C.rerun_on_failure(TraceReason.LOOP_POWER, "a fractional power of a run-time number")
        _ok(C.negate(a < 0), RUN_PLAIN, "a negative number to a fractional power is complex")
    elif op is Op.POW and not (_kind(a) is float and _kind(b) is int):  # a float to an int
        # power is a float whatever the values: python_float_power checks Python's errors
        exponent = b.hint if isinstance(b, SymScalar) and not b.dynamic else b
        if C.is_runtime(exponent) or not float(exponent).is_integer() or exponent < 0:
            raise TraceBreak(
                TraceReason.LOOP_POWER,
                "a power whose type or value depends on "
                "run-time values (use an integer exponent >= 0)",
            )
    if op in (Op.LSHIFT, Op.RSHIFT) and C.is_runtime(b):
        _ok(b >= 0, "ValueError", "negative shift count")
    if op in (Op.TRUEDIV, Op.FLOORDIV, Op.MOD) and (C.is_runtime(b) or b == 0):
        _ok(b != 0 if C.is_runtime(b) else C.never(), "ZeroDivisionError", _zero_message(fn, a, b))


def _fractional_power(a: Any, b: Any) -> bool:
    """``x ** 0.25`` (a constant Python float exponent, not a whole number) of a run-time
    Python float or int: a float where ``x >= 0`` or NaN (python_float_power checks Python's
    errors); Python gives a complex number for a negative ``x``, which the plain code makes
    (a RUN_PLAIN check, trace/control.py)."""
    base_ok = _kind(a) in (float, int) and not isinstance(a, (SymArray, np.generic))
    return base_ok and type(b) is float and not b.is_integer()


@handlers.register
def python_float_power(result: Any, a: Any, b: Any) -> None:
    """A Python float power: where Python raises, compiled code raises the same (C's pow gives
    inf, or inf for ``0.0 ** -1``). The tests are computed at run time, not pinned."""
    result, a, b = _float(result), _float(a), _float(b)
    zero = "0.0 cannot be raised to a negative power"
    _ok(C.negate(_and(a == 0.0, b < 0.0)), "ZeroDivisionError", zero)
    _ok(C.negate(_overflowed(result, a, b)), "OverflowError", _RANGE)


_RANGE = "(34, 'Numerical result out of range')"  # str() of Python's OverflowError of a power


def _zero_message(fn: Callable, a: Any, b: Any) -> str:
    def example(v: Any) -> Any:
        return type(v.hint)(1) if isinstance(v, SymScalar) else type(v)(1)

    try:
        fn(example(a), type(example(b))(0))
    except ZeroDivisionError as exc:
        return str(exc)
    return "division by zero"


_positive = lambda x: x <= 0.0
HANDLERS: dict[Callable, Callable] = {
    math.sqrt: _unary(Op.SQRT, lambda x: x < 0.0),
    math.exp: _unary(Op.EXP, overflow=True),
    math.expm1: _unary(Op.EXPM1, overflow=True),
    math.log: _unary(Op.LOG, _positive),
    math.log2: _unary(Op.LOG2, _positive),
    math.log10: _unary(Op.LOG10, _positive),
    math.log1p: _unary(Op.LOG1P, lambda x: x <= -1.0),
    math.sin: _unary(Op.SIN, lambda x: abs(x) == math.inf),
    math.cos: _unary(Op.COS, lambda x: abs(x) == math.inf),
    math.tan: _unary(Op.TAN, lambda x: abs(x) == math.inf),
    math.asin: _unary(Op.ARCSIN, lambda x: abs(x) > 1.0),
    math.acos: _unary(Op.ARCCOS, lambda x: abs(x) > 1.0),
    math.atan: _unary(Op.ARCTAN),
    math.sinh: _unary(Op.SINH, overflow=True),
    math.cosh: _unary(Op.COSH, overflow=True),
    math.tanh: _unary(Op.TANH),
    math.erf: _unary(Op.ERF),
    math.erfc: _unary(Op.ERFC),
    math.fabs: _unary(Op.ABS),
    math.atan2: _binary(Op.ARCTAN2),
    math.hypot: _binary(Op.HYPOT, overflow=True),
    math.copysign: _binary(Op.COPYSIGN),
    math.pow: _pow,
    math.isnan: _predicate(Op.ISNAN),
    math.isinf: _predicate(Op.ISINF),
    math.isfinite: _predicate(Op.ISFINITE),
    math.floor: _to_int(Op.FLOOR),
    math.ceil: _to_int(Op.CEIL),
    math.trunc: _to_int(None),
    int: _to_int(None),
    round: _round,
    float: _float,
    abs: _abs,
    divmod: _divmod,
    min: _extreme("min"),
    max: _extreme("max"),
    **pycomplex.HANDLERS,
}
