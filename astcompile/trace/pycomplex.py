"""Python ``complex`` numbers computed at run time: ``complex(a, b)``, ``z.real``, ``abs(z)``,
``cmath``, and the arithmetic whose rules are Python's, not NumPy's.

A run-time Python complex is a dynamic :class:`SymScalar` over a complex128 node (the hint
``complex``), as a run-time float is one over a float64 node. ``+`` and ``-`` act on each
part in CPython as in NumPy, so they need nothing here; what does:

* ``a * b`` is CPython's textbook ``_Py_c_prod`` (op PY_CMUL: NumPy's array loops recover
  infinities where it gives NaN), ``a / b`` its ``_Py_c_quot`` (op PY_CDIV, Smith's algorithm
  dividing where NumPy multiplies by a reciprocal), ``ZeroDivisionError`` for ``b == 0``;
* ``abs(z)`` is ``hypot`` and raises ``OverflowError`` when finite parts overflow;
* ``z ** n`` for an integer ``n`` is CPython's repeated squaring, ``OverflowError`` on an
  infinite part, ``ZeroDivisionError`` for ``0j ** -n``; other powers run in Python;
* ``cmath.exp``/``cmath.sqrt`` are CPython's own formulas (ops PY_CEXP, PY_CSQRT) with its
  ``ValueError``/``OverflowError``; ``cmath.phase`` is ``atan2(z.imag, z.real)``,
  ``cmath.polar`` the pair of ``abs`` and phase.

A NumPy complex (``z[i]`` of a complex128 array) mixed with a Python one computes as NumPy
does: that is the SymArray path, untouched here.
"""

from __future__ import annotations

import cmath
import math
from typing import Any

import numpy as np

from astcompile.ir.ops import Op
from astcompile.trace import control as C
from astcompile.trace import handlers
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymScalar, apply_elementwise, operand, plain

_C128 = np.dtype(np.complex128)
_F64 = np.dtype(np.float64)


@handlers.register
def runtime(node: Any, kind: type) -> SymScalar:
    """A Python scalar of type ``kind`` (bool, int, float or complex) computed at run time."""
    dtype = {float: _F64, int: np.dtype(np.int64), bool: np.dtype(bool), complex: _C128}[kind]
    node = B.cast_node(node, dtype)
    return SymScalar(node, kind(1), f"a {kind.__name__} computed in a loop", dynamic=True)


@handlers.register
def float64_partner(hint: Any, other: Any, reflected: bool) -> Any:
    """``other`` as a Python float where it is a NumPy float64 scalar on the right of a Python
    complex ``hint``: np.float64 is a float, so ``complex.__add__`` takes it and the result is
    a Python complex (``s = 0j; s = s + x[i]``); else ``other`` itself, for NumPy's rules
    (``x[i] + 0j`` and ``0j + x32[i]`` are NumPy complex scalars)."""
    if reflected or type(hint) is not complex:
        return other
    found = python_float(other)
    return other if found is None else found


@handlers.register
def python_float(value: Any) -> Any:
    """A NumPy float64 scalar as the Python float it also is (else None), for the operators
    of a Python complex on its left, which take it as one (``1j * x[i]``, ``s ** x[i]``)."""
    if isinstance(value, SymArray) and value.is_scalar and value.python is None:
        return runtime(operand(value).node, float) if value.dtype == _F64 else None
    return float(value) if type(value) is np.float64 else None


def is_complex(value: Any) -> bool:
    """A Python complex (a traced one or a constant), or a NumPy complex scalar."""
    if isinstance(value, SymScalar):
        return isinstance(value.hint, complex)
    if isinstance(value, SymArray):
        return value.dtype.kind == "c"
    return isinstance(value, (complex, np.complexfloating))


def _real(value: Any) -> SymScalar:
    """``float(value)`` of a real number (a Python number or its NumPy twin, whichever a
    branch left: the same value, trace/unions.py)."""
    return runtime(operand(plain(value)).node, float)


def make(real: Any = 0.0, imag: Any = None) -> SymScalar:
    """``complex(real, imag)``: ``complex(z)`` of a complex is its value, as a Python complex;
    real parts are taken as floats, exactly (``complex(inf, nan)`` keeps both)."""
    if imag is None and is_complex(real):
        return runtime(operand(real).node, complex)
    if is_complex(real) or is_complex(imag):
        raise TraceBreak(TraceReason.UNSUPPORTED_SCALAR, "complex() with complex parts")
    re, im = _real(real), _real(0.0 if imag is None else imag)
    return runtime(current().node(Op.COMPLEX, (re.node, im.node), _C128, ()), complex)


@handlers.register
def part(z: SymScalar, op: Op) -> SymScalar:
    """``z.real`` (op REAL) or ``z.imag`` (IMAG) of a run-time Python complex: a float."""
    return runtime(current().node(op, (z.node,), _F64, ()), float)


@handlers.register
def absolute(z: Any, message: str = "absolute value too large") -> SymScalar:
    """``abs(z)``: ``hypot`` of the parts (an infinite part gives inf, even beside NaN), and
    Python's OverflowError when finite parts give an infinite result."""
    parts = [part(z, Op.REAL), part(z, Op.IMAG)]
    result = runtime(apply_elementwise(Op.HYPOT, *parts).node, float)  # not NumPy's abs
    C.check(C.negate(_all([_inf(result), *map(_finite, parts)])), "OverflowError", message)
    return result


def quotient(a: Any, b: Any) -> SymScalar:
    """``a / b`` with a Python complex operand (the divisor's zero check is made by the caller,
    trace/scalars.python_arith, as for floats)."""
    node = B.elementwise(Op.PY_CDIV, [_complex_operand(a), _complex_operand(b)])
    return runtime(node, complex)


@handlers.register
def power(base: Any, exponent: Any) -> SymScalar:
    """``z ** n`` for an integer ``n`` known when tracing, |n| <= 100: CPython's ``c_powi``
    (the product of the squarings ``n``'s bits select, then ``1 / r`` for ``n < 0``)."""
    n = exponent.hint if isinstance(exponent, SymScalar) else exponent
    if C.is_runtime(exponent) or is_complex(n) or float(n) != math.floor(n) or abs(n) > 100:
        raise TraceBreak(TraceReason.LOOP_POWER, "a complex power with a non-integer exponent")
    n = int(n)
    result, square, mask = complex(1.0, 0.0), as_complex(base), 1
    while abs(n) >= mask:
        if abs(n) & mask:
            result = _product(result, square)
        mask <<= 1
        if abs(n) >= mask:
            square = _product(square, square)
    if n <= 0:
        C.check(C.negate(_zero(result)), "ZeroDivisionError", "0.0 to a negative or complex power")
        result = quotient(complex(1.0, 0.0), result)
    result = as_complex(result)
    parts = [part(result, Op.REAL), part(result, Op.IMAG)]
    C.check(C.negate(_any(map(_inf, parts))), "OverflowError", "complex exponentiation")
    return result


def as_complex(value: Any) -> SymScalar:
    """``value`` as Python converts a number it meets in complex arithmetic."""
    return make(value) if not isinstance(value, complex) else make(value.real, value.imag)


def _complex_operand(value: Any) -> B.Operand:
    return operand(value if isinstance(value, complex) else as_complex(value))


def _product(a: Any, b: Any) -> Any:
    if not C.is_runtime(a) and not C.is_runtime(b):
        return a * b
    return runtime(B.elementwise(Op.PY_CMUL, [_complex_operand(a), _complex_operand(b)]), complex)


# -- cmath -----------------------------------------------------------------------------------


def exp(z: Any) -> SymScalar:
    """``cmath.exp``: ValueError for an infinite imaginary part beside a finite or +inf real
    part, OverflowError when a finite ``z`` gives an infinite part."""
    z = as_complex(z)
    re, im = part(z, Op.REAL), part(z, Op.IMAG)
    domain = _all([_inf(im), _any([_finite(re), re == math.inf])])
    C.check(C.negate(domain), "ValueError", "math domain error")
    result = runtime(B.elementwise(Op.PY_CEXP, [operand(z)]), complex)
    parts = [part(result, Op.REAL), part(result, Op.IMAG)]
    overflow = _all([_finite(re), _finite(im), _any(map(_inf, parts))])
    C.check(C.negate(overflow), "OverflowError", "math range error")
    return result


def sqrt(z: Any) -> SymScalar:
    """``cmath.sqrt`` (never raises)."""
    return runtime(B.elementwise(Op.PY_CSQRT, [operand(as_complex(z))]), complex)


def phase(z: Any) -> SymScalar:
    """``cmath.phase``: ``atan2(imag, real)``, whose C99 special values are cmath's. glibc's
    atan2 sets ERANGE when a nonzero ``imag`` beside a finite ``real`` gives 0 (it underflowed),
    and cmath turns that into OverflowError."""
    z = as_complex(z)
    re, im = part(z, Op.REAL), part(z, Op.IMAG)
    result = runtime(apply_elementwise(Op.ARCTAN2, im, re).node, float)
    underflow = _all([_test(Op.EQ, result, 0.0), _test(Op.NE, im, 0.0), _finite(re)])
    C.check(C.negate(underflow), "OverflowError", "math range error")
    return result


def polar(z: Any) -> tuple[SymScalar, SymScalar]:
    """``cmath.polar``: ``(abs(z), atan2(imag, real))``; only the modulus raises (cmath's
    abs resets the errno an underflowing atan2 set)."""
    z = as_complex(z)
    angle = apply_elementwise(Op.ARCTAN2, part(z, Op.IMAG), part(z, Op.REAL)).node
    return absolute(z, "math range error"), runtime(angle, float)


#: The calls a run-time complex argument may reach, by function (trace/scalars.py merges them).
HANDLERS = {complex: make, cmath.exp: exp, cmath.sqrt: sqrt, cmath.phase: phase, cmath.polar: polar}


# -- tests on floats -------------------------------------------------------------------------


def _test(op: Op, *values: Any) -> SymScalar:
    return runtime(B.elementwise(op, [operand(v) for v in values]), bool)


def _inf(x: Any) -> SymScalar:
    return _test(Op.ISINF, x)


def _finite(x: Any) -> SymScalar:
    return _test(Op.ISFINITE, x)


def _zero(z: Any) -> SymScalar:
    return _test(Op.EQ, z, 0.0) if C.is_runtime(z) else z == 0


def _all(tests: Any) -> Any:
    return _fold(Op.LOGICAL_AND, tests)


def _any(tests: Any) -> Any:
    return _fold(Op.LOGICAL_OR, tests)


def _fold(op: Op, tests: Any) -> Any:
    tests = list(tests)
    result = tests[0]
    for t in tests[1:]:
        result = _test(op, result, t)
    return result
