"""Op -> C expression: one small named function per op, kept in a table keyed by ``Op``.

A rule gets the node and its operands (C expression, dtype, weak flag, constant value) already
converted to the op's computation type, and returns a C expression of the node's dtype. Where C
and NumPy disagree (NaN in max/min, integer division by zero, shifts past the bit width,
float->int casts of NaN) the rule calls a helper from ``runtime/include/astc_math.h`` that gives
NumPy's answer. ``can_lower`` says whether a node has a rule for its dtypes; anything else runs
in NumPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir.attrs import ArithKind
from astcompile.ir.graph import Node
from astcompile.ir.ops import Kind, Op
from astcompile.lower.operands import Operand, convert_operand, floats_fit, lower_with
from astcompile.targets.base import IDENT as _IDENT
from astcompile.targets.base import INFIX_RULES, LIBM, pick_zero_operands, zero_pick_by_position
from astcompile.targets.base import bool_or_infix as _bool_or_infix
from astcompile.targets.base import float_or as _int_or
from astcompile.targets.base import infix as _infix
from astcompile.targets.c.complex_rules import COMPLEX_RULES, is_complex
from astcompile.targets.c.ctypes import ctype, literal, supported_dtype
from astcompile.targets.c.nan_signs import with_numpy_nan


def _fn(name: str) -> Callable:
    """A libm call: ``expf`` for float32, ``exp`` for float64."""

    def rule(node: Node, a: list[str]) -> str:
        suffix = "f" if node.dtype == np.float32 else ""
        return f"{name}{suffix}({', '.join(a)})"

    return rule


def _pick(name: str, compare: str) -> Callable:
    """maximum/minimum/fmax/fmin: the NaN-aware helper for floats (``np.maximum.at``'s, which
    raises the invalid flag on NaN: ArithKind.INDEXED), a plain select otherwise."""
    quiet, loud = _helper(name), _helper(f"{name}_at")
    floats = lambda n, a: (loud if n.attr is ArithKind.INDEXED else quiet)(n, a)
    return _int_or(floats, lambda n, a: f"({a[0]} {compare} {a[1]} ? {a[0]} : {a[1]})")


def _scalar_int_or(name: str, rule: Callable) -> Callable:
    """``rule``, or for NumPy's integer scalar operator (``ArithKind.SCALAR``) the helper that
    raises the overflow flag where it wraps, as NumPy warns."""

    def pick(node: Node, a: list[str]) -> str:
        if node.attr is ArithKind.SCALAR and node.dtype.kind in "iu":
            return _helper(f"scalar_{name}")(node, a)
        return rule(node, a)

    return pick


def _ordered(name: str, op: str) -> Callable:
    """<, <=, >, >= in C: floats compare quietly (``astc_less_double``: C's ``<`` raises the
    invalid flag on NaN, NumPy's comparison does not), other types with the infix operator."""
    return _int_or(_helper(name), _infix(op))


def _clip(node: Node, a: list[str]) -> str:
    """min(max(x, lo), hi) as NumPy: lo > hi gives hi."""
    if node.dtype.kind == "f":
        t = ctype(node.dtype)
        return f"astc_clip_{t}({a[0]}, {a[1]}, {a[2]})"
    low = f"({a[0]} > {a[1]} ? {a[0]} : {a[1]})"
    return f"({low} < {a[2]} ? {low} : {a[2]})"


def _helper(name: str) -> Callable:
    """A helper from astc_math.h specialised by C type: ``astc_floordiv_int32_t(a, b)``."""
    return lambda node, a: f"astc_{name}_{ctype(node.dtype)}({', '.join(a)})"


def _where(node: Node, a: list[str]) -> str:
    """``c ? a : b``; a float scalar picked by data through astc_select (no jump). np.where's
    floats (ArithKind.EVERY) through astc_both where a side is computed: on every element, as
    NumPy computes it (its flags: a division by zero the where drops still warns)."""
    computed = any(side.kind is Kind.ELEMENTWISE for side in node.inputs[1:])
    if node.attr is ArithKind.EVERY and computed and node.dtype in (np.float32, np.float64):
        return f"astc_both_{ctype(node.dtype)}({a[0]}, {a[1]}, {a[2]})"
    if node.shape == () and node.dtype.kind == "f":
        return f"astc_select_{ctype(node.dtype)}({a[0]}, {a[1]}, {a[2]})"
    return f"({a[0]} ? {a[1]} : {a[2]})"


def _pow(node: Node, a: list[str]) -> str:
    return _fn("pow")(node, a)


def cast(expr: str, src: np.dtype, dst: np.dtype) -> str:
    """C converting ``expr`` from ``src`` to ``dst`` as NumPy does (where :func:`can_cast`)."""
    if dst.kind == "b":
        return f"({expr} != 0)"
    if src.kind == "f" and dst.kind in "iu":
        wide = "astc_f2i64" if dst.itemsize == 8 else "astc_f2i32"
        return f"(({ctype(dst)}){wide}({expr}))"
    if src == np.complex128 and dst == np.complex64:  # GCC 12 drops it before a widening
        return f"ASTC_ROUNDED((float complex)({expr}))"  # (no inf, no overflow flag)
    return f"(({ctype(dst)}){expr})"


def can_cast(src: np.dtype, dst: np.dtype) -> bool:
    """Not a float to uint32/64, nor a complex to a real (NumPy warns: imaginary part dropped)."""
    if not (supported_dtype(src) and supported_dtype(dst)):
        return False
    if src.kind == "c":
        return dst.kind in "cb"
    return not (src.kind == "f" and dst.kind == "u" and dst.itemsize >= 4)


def _ratio(dtype: np.dtype, a: float, b: float) -> Any:
    """``a / b`` as NumPy's deg2rad/rad2deg compute it: in the dtype itself (float32
    ``180 / pi`` is 57.295776, not float32(57.29577951...) = 57.29578)."""
    return dtype.type(a) / dtype.type(b)


#: op -> rule(node, operand expressions) -> C expression.
RULES: dict[Op, Callable[[Node, list[str]], str]] = {
    Op.NEG: _scalar_int_or("neg", lambda n, a: f"(-{a[0]})"),
    Op.POS: _IDENT,
    Op.COPY: _IDENT,
    Op.IOTA: _IDENT,  # its operand is the loop index (c.py, structured.py)
    Op.BROADCAST_TO: _IDENT,
    Op.ABS: _scalar_int_or(
        "abs",
        _int_or(
            _fn("fabs"),
            lambda n, a: a[0] if n.dtype.kind in "ub" else f"({a[0]} < 0 ? -{a[0]} : {a[0]})",
        ),
    ),
    Op.SQUARE: lambda n, a: f"({a[0]} * {a[0]})",
    Op.RECIPROCAL: lambda n, a: f"(1 / {a[0]})",
    **{op: _fn(name) for op, name in LIBM.items()},
    Op.FLOOR: _int_or(_fn("floor"), _IDENT),
    Op.CEIL: _int_or(_fn("ceil"), _IDENT),
    Op.TRUNC: _int_or(_fn("trunc"), _IDENT),
    Op.RINT: _int_or(_fn("rint"), _IDENT),
    Op.SIGN: _int_or(_helper("sign"), lambda n, a: f"(({a[0]} > 0) - ({a[0]} < 0))"),
    Op.ISNAN: _int_or(lambda n, a: f"({a[0]} != {a[0]})", lambda n, a: "0"),
    Op.ISINF: lambda n, a: f"(__builtin_isinf({a[0]}) != 0)",
    Op.ISFINITE: lambda n, a: f"(__builtin_isfinite({a[0]}) != 0)",
    Op.SIGNBIT: lambda n, a: f"(__builtin_signbit({a[0]}) != 0)",
    Op.LOGICAL_NOT: lambda n, a: f"(!{a[0]})",
    Op.INVERT: lambda n, a: f"(!{a[0]})" if n.dtype.kind == "b" else f"(~{a[0]})",
    Op.DEG2RAD: lambda n, a: f"({a[0]} * {literal(_ratio(n.dtype, np.pi, 180), n.dtype)})",
    Op.RAD2DEG: lambda n, a: f"({a[0]} * {literal(_ratio(n.dtype, 180, np.pi), n.dtype)})",
    Op.ADD: _scalar_int_or("add", _bool_or_infix("|", "+")),
    Op.SUB: _scalar_int_or("sub", _infix("-")),
    Op.MUL: _scalar_int_or("mul", _bool_or_infix("&", "*")),
    Op.TRUEDIV: _infix("/"),
    Op.FLOORDIV: _helper("floordiv"),
    Op.MOD: _helper("mod"),
    Op.POW: _pow,
    Op.MAXIMUM: _pick("maximum", ">"),
    Op.MINIMUM: _pick("minimum", "<"),
    Op.FMAX: lambda n, a: _pick("fmax", ">")(n, pick_zero_operands(n, a)),
    Op.FMIN: lambda n, a: _pick("fmin", "<")(n, pick_zero_operands(n, a)),
    Op.LOGADDEXP: _helper("logaddexp"),
    **INFIX_RULES,
    Op.LT: _ordered("less", "<"),
    Op.LE: _ordered("less_equal", "<="),
    Op.GT: _ordered("greater", ">"),
    Op.GE: _ordered("greater_equal", ">="),
    Op.LSHIFT: _helper("lshift"),
    Op.RSHIFT: _helper("rshift"),
    Op.WHERE: _where,
    Op.REAL: _IDENT,  # of a real value: the value itself (complex operands: lower_complex)
    Op.IMAG: lambda n, a: "0",
    Op.CLIP: _clip,
}

#: libm functions of one float whose NaN results take NumPy's sign (targets/c/nan_signs.py)
_NAN_SIGNED = (Op.CBRT, Op.EXP, Op.EXP2, Op.EXPM1, Op.LOG, Op.LOG2, Op.LOG10, Op.LOG1P)
_NAN_SIGNED += (Op.SIN, Op.COS, Op.TAN, Op.ARCSIN, Op.ARCCOS, Op.ARCTAN, Op.SINH, Op.COSH)
_NAN_SIGNED += (Op.TANH, Op.ARCSINH, Op.ARCCOSH, Op.ARCTANH)
RULES.update({op: with_numpy_nan(op, RULES[op]) for op in _NAN_SIGNED})


def lower(node: Node, operands: list[Operand], rules: dict | None = None) -> str:
    """The C expression computing ``node`` from its operands (cast to the computation type);
    ``rules`` replaces :data:`RULES` (structured_signals.py: C's own float comparisons)."""
    if node.op is Op.CAST:  # of a constant: one that raises a flag (trace/nodes.py cast)
        expr = operand_expr(operands[0])
        if operands[0].value is not None and operands[0].dtype.kind == "f":
            expr = f"astc_at_run_time({expr})"
        return cast(expr, operands[0].dtype, node.dtype)
    rules = COMPLEX_RULES if is_complex(node) else rules or RULES
    return lower_with(node, operands, rules, _convert, lambda e: f"(({ctype(node.dtype)}){e})")


def operand_expr(operand: Operand) -> str:
    """C for an operand in its own dtype: a constant (also a 0-d array one) as a literal."""
    return _convert(operand, operand.dtype)


def _convert(operand: Operand, dtype: np.dtype) -> str:
    return convert_operand(operand, dtype, literal, lambda expr, t: f"(({ctype(t)}){expr})")


def can_lower(node: Node) -> bool:
    """Whether ``node`` (an elementwise op) has a C rule for its dtypes."""
    if node.op is Op.CAST:
        return can_cast(node.inputs[0].dtype, node.dtype)
    dtypes = [node.dtype, *(i.dtype for i in node.inputs)]
    if not all(supported_dtype(d) for d in dtypes):
        return False
    if is_complex(node):
        return node.op in COMPLEX_RULES
    return node.op in RULES and floats_fit(node) and not zero_pick_by_position(node)
