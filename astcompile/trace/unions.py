"""A variable that is a Python number or its NumPy twin, depending on which branch ran.

Python gives a variable the type of what was last assigned to it::

    worst = 0.0                      # a Python float
    for p in prices:
        if p - peak < worst:
            worst = p - peak         # a NumPy float64, only if this branch ran
    return worst                     # 0.0 or np.float64(...)

A Python float and a NumPy float64 (an int and an int64, a bool and a NumPy bool) hold the
same values, so the compiled code keeps one value and a run-time *flag*, "still the Python
number". The flag travels through branches and loops next to the value and picks the Python
type of a returned value. Where the two types would compute differently, the union is not
traced (a trace break, so NumPy runs it):

* mixed with a NumPy scalar or array of another dtype (``worst * x32``: float32 or float64);
* only with Python numbers, in ``//``, ``%``, ``**`` and ``/`` of ints (Python raises on
  zero, NumPy gives inf), or as a bool in arithmetic (``True + True`` is 2, NumPy's is True);
  ``/`` of a float is traced: the same quotient, and a check raises ZeroDivisionError where
  the Python float is divided by zero;
* stored into an integer array of another dtype, passed to ``math.*`` or used as an index.

Same-dtype arithmetic, comparisons, truth tests, stores into float arrays and being returned
are exact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir.ops import COMPARISONS, Op, info
from astcompile.trace import control as C
from astcompile.trace import handlers
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, apply_elementwise, is_union, operand, plain

#: the NumPy dtype holding a Python number's value, with the same arithmetic
NATURAL = {
    bool: np.dtype(bool),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
    complex: np.dtype(np.complex128),
}
_PYTHON_OF = {"b": bool, "i": int, "f": float, "c": complex}
#: ops where Python numbers and NumPy scalars differ in value or error; WHERE is Python's
#: min/max (trace/scalars.py), which returns one argument *with its type*
_PYTHON_DIFFERS = frozenset(
    {Op.TRUEDIV, Op.FLOORDIV, Op.MOD, Op.POW, Op.LSHIFT, Op.RSHIFT, Op.INVERT, Op.WHERE}
)


def make(value: Any, python: type, flag: Any) -> Any:
    """``value`` (a NumPy scalar of ``python``'s natural dtype) that is the Python number
    where the 0-d bool ``flag`` holds."""
    union = SymArray(value.node, True)
    union.python = (python, flag)
    return union


@handlers.register
def broken(what: str) -> TraceBreak:
    return TraceBreak(
        TraceReason.VALUE_DEPENDENT_TYPE,
        f"{what}: the variable is a Python number or a "
        "NumPy scalar depending on which branch ran (give it one type first, "
        "e.g. np.float64(0.0))",
    )


@handlers.register
def elementwise(op: Op, values: tuple, numpy_fn: Callable | None, ufunc: bool) -> Any:
    """``op`` on values of which some are unions: NumPy's result where both types compute the
    same dtype; the result is itself a union when the other operands are Python numbers too
    (Python arithmetic gives a Python number), unless it comes from a ufunc (always NumPy)."""
    fn = numpy_fn or info(op).numpy
    examples = [v.python[0](1) if is_union(v) else operand(v).example for v in values]
    result = apply_elementwise(op, *(plain(v) for v in values), numpy_fn=numpy_fn)
    with np.errstate(all="ignore"):
        python_dtype = np.asarray(fn(*examples)).dtype
    if python_dtype != result.dtype:
        raise broken(f"{op.name.lower()} computes in {result.dtype} or in {python_dtype}")
    others = [v for v in values if not is_union(v)]
    if ufunc or not all(operand(v).weak for v in others):
        return result
    python = _PYTHON_OF.get(result.dtype.kind)
    flags = [v.python[1] for v in values if is_union(v)]
    if op is Op.TRUEDIV and all(v.python[0] is float for v in values if is_union(v)):
        return make(result, float, _python_division(values, _all_python(flags)))
    bool_math = op not in COMPARISONS and any(v.python[0] is bool for v in values if is_union(v))
    if op in _PYTHON_DIFFERS or bool_math or NATURAL.get(python) != result.dtype:
        raise broken(f"{op.name.lower()} of Python numbers")
    return make(result, python, _all_python(flags))


def _python_division(values: tuple, flag: Any) -> Any:
    """``a / b`` of a float union and Python numbers: the same quotient either way (Python
    converts an int operand to float as NumPy does); only a zero ``b`` differs, where Python
    raises and NumPy gives inf or nan, so that raises where the result is the Python float.
    Returns ``flag``, the quotient's own."""
    divisor = operand(plain(values[1]))
    if divisor.node.op is Op.CONST and divisor.node.attr.value != 0:
        return flag
    zero = B.elementwise(Op.EQ, [divisor, B.const_operand(0)])
    raises = B.elementwise(Op.LOGICAL_AND, [_operand(flag), C.node_operand(zero)])
    C.check(C.negate(_flag_value(raises)), "ZeroDivisionError", "float division by zero")
    return flag


def _all_python(flags: list) -> Any:
    flag = flags[0]
    for other in flags[1:]:
        if other is not flag:
            flag = B.elementwise(Op.LOGICAL_AND, [_operand(flag), _operand(other)])
            flag = _flag_value(flag)
    return flag


def _operand(flag: Any) -> B.Operand:
    return B.Operand(flag.node, False, np.ones((), bool))


def _flag_value(node: Any) -> Any:
    return SymArray(node, True)


def storable(value: Any, dtype: np.dtype) -> Any:
    """A union stored into an array of ``dtype``: a float, complex or bool array, or one of
    the union's own dtype, converts both types alike."""
    if dtype.kind in "fcb" or dtype == value.dtype:
        return plain(value)
    raise broken(f"a store into a {dtype} array")
