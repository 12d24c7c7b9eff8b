"""Op -> C expression for complex64/complex128 operands: NumPy's formulas, not C99's.

C's ``*`` and ``/`` on complex values follow Annex G (``__muldc3``/``__divdc3``): they recover
infinities that NumPy's textbook multiply and Smith divide leave as NaN, and they are slow. So
every op that is not plain component arithmetic calls a helper of
``runtime/include/astc_complex.h`` (``astc_cmul``, ``astc_cdiv``, ``astc_cabs``, ...), whose
``f`` variants keep complex64 math in float as NumPy does. A product of arrays is fused into
multiply-adds where NumPy's own loop fuses them (:func:`numpy_fuses`). ``+``, ``-``, negation, ``==``, ``!=``
and ``?:`` act on each part, so they stay C operators.

``complex(re, im)``, and Python's complex division, ``cmath.exp`` and ``cmath.sqrt`` (ops of
their own: CPython's algorithms, not NumPy's) call the ``astc_py*`` helpers.

Ops with no rule here (ordering ops other than comparisons, trigonometry, ``sign``, ...) and
casts that drop the imaginary part (NumPy warns: ``c_rules.can_cast``) run in NumPy.
"""

from __future__ import annotations

import functools

import numpy as np

from astcompile.ir.attrs import ArithKind
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.targets.base import Rule
from astcompile.targets.base import infix as _infix


def _suffix(node: Node) -> str:
    """``f`` for complex64 helpers (``astc_cmulf``), nothing for complex128."""
    return "f" if node.dtype == np.complex64 else ""


def _helper(name: str) -> Rule:
    return lambda node, a: f"astc_{name}{_suffix(node)}({', '.join(a)})"


@functools.cache
def numpy_fuses(dtype: np.dtype) -> bool:
    """Whether NumPy's complex multiply loop for ``dtype`` fuses each part into one
    multiply-add, as its AVX2 and AVX-512 loops do (its SSE2 loop, scalar operators and
    reductions do not): asked of NumPy itself, with a product whose real part is nonzero only
    when fused."""
    e = 2.0**-30 if dtype == np.complex128 else 2.0**-13
    a, b = np.array([1 + e + 1j], dtype), np.array([1 - e + 1j], dtype)
    return bool((a * b)[0].real != 0)


def _multiply(node: Node, a: list[str]) -> str:
    """NumPy's product: as its array loop computes it, or its scalar operator (textbook)."""
    fused = node.attr is not ArithKind.SCALAR and numpy_fuses(node.dtype)
    return _helper("cmul_fused" if fused else "cmul")(node, a)


def _libm(name: str) -> Rule:
    """``creal``/``crealf`` from <complex.h>."""
    return lambda node, a: f"{name}{_suffix(node)}({a[0]})"


#: op -> rule(node seen with its complex computation dtype, operand expressions).
COMPLEX_RULES: dict[Op, Rule] = {
    Op.NEG: lambda n, a: f"(-{a[0]})",
    Op.POS: lambda n, a: a[0],
    Op.COPY: lambda n, a: a[0],
    Op.BROADCAST_TO: lambda n, a: a[0],
    Op.ADD: _infix("+"),
    Op.SUB: _infix("-"),
    Op.MUL: _multiply,
    Op.TRUEDIV: _helper("cdiv"),
    Op.SQUARE: lambda n, a: _multiply(n, [a[0], a[0]]),
    Op.POW: _helper("cpow"),
    Op.ABS: _helper("cabs"),
    Op.SQRT: _helper("csqrt"),
    Op.EXP: _helper("cexp"),
    Op.CONJ: _helper("conj"),
    Op.REAL: _libm("creal"),
    Op.IMAG: _libm("cimag"),
    Op.EQ: _infix("=="),
    Op.NE: _infix("!="),
    Op.LT: _helper("clt"),
    Op.LE: _helper("cle"),
    Op.GT: _helper("cgt"),
    Op.GE: _helper("cge"),
    Op.ISNAN: _helper("cisnan"),
    Op.ISINF: _helper("cisinf"),
    Op.ISFINITE: _helper("cisfinite"),
    Op.WHERE: lambda n, a: f"({a[0]} ? {a[1]} : {a[2]})",
    # Python complex scalars (complex128 only): CPython's algorithms
    Op.COMPLEX: lambda n, a: f"ASTC_CMPLX({a[0]}, {a[1]})",
    Op.PY_CMUL: _helper("pycmul"),
    Op.PY_CDIV: _helper("pycdiv"),
    Op.PY_CEXP: _helper("pycexp"),
    Op.PY_CSQRT: _helper("pycsqrt"),
}


def is_complex(node: Node) -> bool:
    return node.dtype.kind == "c" or any(i.dtype.kind == "c" for i in node.inputs)
