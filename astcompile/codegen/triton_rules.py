"""Op -> Triton expression: the Triton target's rule table.

The same contract as the C table (:data:`astcompile.codegen.lower.RULES`): a rule gets the node
(seen with its computation dtype) and its operands as Triton expressions already converted to
that dtype, and returns an expression of the node's dtype. Math functions go through ``lm``
(:mod:`astcompile.runtime.triton_math`): ``libdevice`` on a GPU, NumPy under the interpreter.
Where Triton's own operator would differ from NumPy, the rule says how NumPy's answer is made:
``tl.maximum`` with ``PropagateNan.ALL`` (NaN wins, as ``np.maximum``), ``sqrt`` correctly
rounded (``tl.sqrt`` is approximate for float32), predicates as comparisons.

Ops with no row here (integer floor division and modulo, shifts, logaddexp, complex values)
run as NumPy steps between the kernels (``supports``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.codegen.ctypes import as_integer
from astcompile.codegen.lower import INFIX_RULES, Operand, compute_dtype, convert_operand
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op

Rule = Callable[[Node, list[str]], str]

#: dtype -> Triton element type. Bools are bytes in memory and ``tl.int1`` in registers.
TL_TYPES: dict[np.dtype, str] = {
    np.dtype(np.bool_): "tl.int1",
    np.dtype(np.int8): "tl.int8",
    np.dtype(np.int16): "tl.int16",
    np.dtype(np.int32): "tl.int32",
    np.dtype(np.int64): "tl.int64",
    np.dtype(np.uint8): "tl.uint8",
    np.dtype(np.uint16): "tl.uint16",
    np.dtype(np.uint32): "tl.uint32",
    np.dtype(np.uint64): "tl.uint64",
    np.dtype(np.float32): "tl.float32",
    np.dtype(np.float64): "tl.float64",
}

#: The signature type name ``triton.compile`` takes for each dtype (pointers add ``*``).
SIGNATURE: dict[np.dtype, str] = {
    np.dtype(np.bool_): "i1",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.uint64): "u64",
    np.dtype(np.float32): "fp32",
    np.dtype(np.float64): "fp64",
}

NAN_FIRST = "propagate_nan=tl.PropagateNan.ALL"


def tl_type(dtype: np.dtype) -> str:
    return TL_TYPES[np.dtype(dtype)]


def constant(value: Any, dtype: np.dtype) -> str:
    """``value`` as a Python constant of ``dtype``'s values; NaN and infinities name the
    kernel module's ``NAN`` and ``INF``."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        return str(int(bool(value)) if dtype.kind == "b" else as_integer(value, dtype))
    v = float(dtype.type(value))
    if math.isinf(v):
        return "INF" if v > 0 else "-INF"
    if math.isnan(v):  # -np.nan has its sign bit set (np.copysign reads it)
        return "-NAN" if math.copysign(1.0, v) < 0 else "NAN"
    return repr(v)


def literal(value: Any, dtype: np.dtype) -> str:
    """A 0-d Triton constant of ``dtype``."""
    return f"tl.full([], {constant(value, dtype)}, {tl_type(dtype)})"


def _lm(name: str) -> Rule:
    return lambda node, a: f"lm.{name}({', '.join(a)})"


def _float_or(float_rule: Rule, int_rule: Rule) -> Rule:
    return lambda node, a: (float_rule if node.dtype.kind == "f" else int_rule)(node, a)


def _infix(op: str) -> Rule:
    return lambda node, a: f"({a[0]} {op} {a[1]})"


def _bool_or_infix(bool_op: str, op: str) -> Rule:
    return lambda node, a: f"({a[0]} {bool_op if node.dtype.kind == 'b' else op} {a[1]})"


def _pick(fn: str) -> Rule:
    """maximum/minimum: NaN wins for floats, as in NumPy."""
    return _float_or(
        lambda n, a: f"tl.{fn}({a[0]}, {a[1]}, {NAN_FIRST})",
        lambda n, a: f"tl.{fn}({a[0]}, {a[1]})",
    )


def _pick_number(fn: str) -> Rule:
    """fmax/fmin: a NaN loses to a number."""
    return _float_or(
        lambda n, a: (
            f"tl.where({a[1]} != {a[1]}, {a[0]}, tl.where({a[0]} != {a[0]}, {a[1]}, tl.{fn}({a[0]}, {a[1]})))"
        ),
        lambda n, a: f"tl.{fn}({a[0]}, {a[1]})",
    )


def _ratio(node: Node, a: list[str], num: float, den: float) -> str:
    dtype = node.dtype
    return f"({a[0]} * {literal(dtype.type(num) / dtype.type(den), dtype)})"


def _sign(node: Node, a: list[str]) -> str:
    t = tl_type(node.dtype)
    if node.dtype.kind == "f":  # x - x: 0 for 0 and -0 (NumPy's sign of -0 is 0), NaN for NaN
        one = literal(1, node.dtype)
        return f"tl.where({a[0]} > 0, {one}, tl.where({a[0]} < 0, -{one}, {a[0]} - {a[0]}))"
    return f"(({a[0]} > 0).to({t}) - ({a[0]} < 0).to({t}))"


def _clip(node: Node, a: list[str]) -> str:
    if node.dtype.kind == "f":
        inner = f"tl.maximum({a[0]}, {a[1]}, {NAN_FIRST})"
        return f"tl.minimum({inner}, {a[2]}, {NAN_FIRST})"
    return f"tl.minimum(tl.maximum({a[0]}, {a[1]}), {a[2]})"  # lo > hi gives hi, as NumPy


_IDENT: Rule = lambda node, a: a[0]

#: op -> rule(node, operand expressions) -> Triton expression.
RULES: dict[Op, Rule] = {
    Op.NEG: lambda n, a: f"(-{a[0]})",
    Op.POS: _IDENT,
    Op.COPY: _IDENT,
    Op.IOTA: _IDENT,  # its operand is the index of the axis it follows
    Op.BROADCAST_TO: _IDENT,
    Op.ABS: lambda n, a: a[0] if n.dtype.kind in "ub" else f"tl.abs({a[0]})",
    Op.SQUARE: lambda n, a: f"({a[0]} * {a[0]})",
    Op.RECIPROCAL: lambda n, a: f"({literal(1, n.dtype)} / {a[0]})",
    Op.SQRT: _lm("sqrt"),
    Op.CBRT: _lm("cbrt"),
    Op.EXP: _lm("exp"),
    Op.EXP2: _lm("exp2"),
    Op.EXPM1: _lm("expm1"),
    Op.LOG: _lm("log"),
    Op.LOG2: _lm("log2"),
    Op.LOG10: _lm("log10"),
    Op.LOG1P: _lm("log1p"),
    Op.SIN: _lm("sin"),
    Op.COS: _lm("cos"),
    Op.TAN: _lm("tan"),
    Op.ARCSIN: _lm("asin"),
    Op.ARCCOS: _lm("acos"),
    Op.ARCTAN: _lm("atan"),
    Op.SINH: _lm("sinh"),
    Op.COSH: _lm("cosh"),
    Op.TANH: _lm("tanh"),
    Op.ARCSINH: _lm("asinh"),
    Op.ARCCOSH: _lm("acosh"),
    Op.ARCTANH: _lm("atanh"),
    Op.FLOOR: _float_or(_lm("floor"), _IDENT),
    Op.CEIL: _float_or(_lm("ceil"), _IDENT),
    Op.TRUNC: _float_or(_lm("trunc"), _IDENT),
    Op.RINT: _float_or(_lm("rint"), _IDENT),
    Op.SIGN: _sign,
    Op.ISNAN: lambda n, a: f"({a[0]} != {a[0]})",
    Op.ISINF: lambda n, a: f"(tl.abs({a[0]}) == INF)",
    Op.ISFINITE: lambda n, a: f"(tl.abs({a[0]}) < INF)",
    Op.SIGNBIT: lambda n, a: f"(lm.signbit({a[0]}) != 0)",
    Op.LOGICAL_NOT: lambda n, a: f"({a[0]} == 0)",
    Op.INVERT: lambda n, a: f"({a[0]} == 0)" if n.dtype.kind == "b" else f"(~{a[0]})",
    Op.DEG2RAD: lambda n, a: _ratio(n, a, np.pi, 180),
    Op.RAD2DEG: lambda n, a: _ratio(n, a, 180, np.pi),
    Op.ADD: _bool_or_infix("|", "+"),
    Op.SUB: _infix("-"),
    Op.MUL: _bool_or_infix("&", "*"),
    Op.TRUEDIV: _infix("/"),
    Op.POW: _lm("pow"),
    Op.MAXIMUM: _pick("maximum"),
    Op.MINIMUM: _pick("minimum"),
    Op.FMAX: _pick_number("maximum"),
    Op.FMIN: _pick_number("minimum"),
    Op.ARCTAN2: _lm("atan2"),
    Op.HYPOT: _lm("hypot"),
    Op.COPYSIGN: _lm("copysign"),
    **INFIX_RULES,
    Op.WHERE: lambda n, a: f"tl.where({a[0]}, {a[1]}, {a[2]})",
    Op.REAL: _IDENT,
    Op.CLIP: _clip,
}

#: Defined for floats only (NumPy computes integer arguments in float64: the node says so).
FLOAT_ONLY = frozenset(
    {Op.SQRT, Op.CBRT, Op.EXP, Op.EXP2, Op.EXPM1, Op.LOG, Op.LOG2, Op.LOG10, Op.LOG1P}
    | {Op.SIN, Op.COS, Op.TAN, Op.ARCSIN, Op.ARCCOS, Op.ARCTAN, Op.SINH, Op.COSH, Op.TANH}
    | {Op.ARCSINH, Op.ARCCOSH, Op.ARCTANH, Op.TRUEDIV, Op.ARCTAN2, Op.HYPOT, Op.COPYSIGN}
    | {Op.DEG2RAD, Op.RAD2DEG, Op.RECIPROCAL, Op.POW, Op.ISINF, Op.ISFINITE, Op.SIGNBIT}
)


def lower(node: Node, operands: list[Operand]) -> str:
    """The Triton expression computing ``node`` from its operands."""
    if node.op is Op.CAST:
        return convert(operands[0], node.dtype)
    work = compute_dtype(node, operands)
    if node.op is Op.POW and operands[1].value in (2, 3):  # x**2 as a product, as NumPy
        return "(" + " * ".join([convert(operands[0], work)] * int(operands[1].value)) + ")"
    args = [convert(o, work) for o in operands]
    if node.op is Op.WHERE:
        args[0] = convert(operands[0], np.dtype(bool))
    typed = node if work == node.dtype else Node(node.op, (), work, (), None, None, -1)
    return RULES[node.op](typed, args)


def convert(operand: Operand, dtype: np.dtype) -> str:
    """``operand`` as a value of ``dtype``: a constant as a typed literal."""
    return convert_operand(operand, dtype, literal, lambda expr, t: f"{expr}.to({tl_type(t)})")


def can_lower(node: Node) -> bool:
    """Whether ``node`` (an elementwise op) has a Triton rule for its dtypes."""
    dtypes = [node.dtype, *(i.dtype for i in node.inputs)]
    if not all(np.dtype(d) in TL_TYPES for d in dtypes):
        return False
    if node.op is Op.CAST:
        src = node.inputs[0].dtype
        return not (src.kind == "f" and node.dtype.kind in "iu")  # NaN/overflow: NumPy's
    if node.op not in RULES:
        return False
    float_args = node.op in (Op.ISINF, Op.ISFINITE, Op.SIGNBIT)
    kinds = [i.dtype.kind for i in node.inputs] if float_args else [node.dtype.kind]
    return not (node.op in FLOAT_ONLY and any(k != "f" for k in kinds))
