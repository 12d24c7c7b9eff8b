"""Op -> Triton expression: the Triton target's rule table.

The same contract as the C table (:data:`astcompile.targets.c.c_rules.RULES`): a rule gets the node
(seen with its computation dtype) and its operands as Triton expressions already converted to
that dtype, and returns an expression of the node's dtype. Math functions go through ``lm``
(:mod:`astcompile.runtime.triton_math`): ``libdevice`` on a GPU, NumPy under the interpreter.
Where Triton's own operator would differ from NumPy, the rule says how NumPy's answer is made:
max/min as selects (NaN wins as in ``np.maximum``, of equal zeros the second), ``sqrt`` correctly
rounded (``tl.sqrt`` is approximate for float32), predicates as comparisons.

Ops with no row here (integer floor division and modulo, shifts, logaddexp, complex values)
run as NumPy steps between the kernels (``supports``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from astcompile.ir.attrs import ArithKind
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.lower.operands import Operand, as_integer, convert_operand, floats_fit, lower_with
from astcompile.targets.base import (
    IDENT,
    INFIX_RULES,
    LIBM,
    Rule,
    bool_or_infix,
    float_or,
    infix,
    pick_zero_operands,
    zero_pick_by_position,
)

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


def _pick(fn: str, compare: str, nan_wins: bool) -> Rule:
    """maximum/minimum (a NaN wins) and fmax/fmin (a NaN loses to a number), as the C helpers
    write them: ``a`` where it is strictly beyond ``b`` or is the NaN that wins (maximum) or
    ``b`` is the NaN that loses (fmax), else ``b``. So of equal values (``0.0``, ``-0.0``) the
    second wins, as in NumPy's vector loops; ``tl.maximum`` leaves that to the instruction."""

    def floats(n: Node, a: list[str]) -> str:
        a = a if nan_wins else pick_zero_operands(n, a)
        nan = a[0] if nan_wins else a[1]
        return f"tl.where(({a[0]} {compare} {a[1]}) | ({nan} != {nan}), {a[0]}, {a[1]})"

    return float_or(floats, lambda n, a: f"tl.{fn}({a[0]}, {a[1]})")


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


#: op -> rule(node, operand expressions) -> Triton expression.
RULES: dict[Op, Rule] = {
    Op.NEG: lambda n, a: f"(-{a[0]})",
    Op.POS: IDENT,
    Op.COPY: IDENT,
    Op.IOTA: IDENT,  # its operand is the index of the axis it follows
    Op.BROADCAST_TO: IDENT,
    Op.ABS: lambda n, a: a[0] if n.dtype.kind in "ub" else f"tl.abs({a[0]})",
    Op.SQUARE: lambda n, a: f"({a[0]} * {a[0]})",
    Op.RECIPROCAL: lambda n, a: f"({literal(1, n.dtype)} / {a[0]})",
    **{op: _lm(name) for op, name in LIBM.items()},
    Op.FLOOR: float_or(_lm("floor"), IDENT),
    Op.CEIL: float_or(_lm("ceil"), IDENT),
    Op.TRUNC: float_or(_lm("trunc"), IDENT),
    Op.RINT: float_or(_lm("rint"), IDENT),
    Op.SIGN: _sign,
    Op.ISNAN: lambda n, a: f"({a[0]} != {a[0]})",
    Op.ISINF: lambda n, a: f"(tl.abs({a[0]}) == INF)",
    Op.ISFINITE: lambda n, a: f"(tl.abs({a[0]}) < INF)",
    Op.SIGNBIT: lambda n, a: f"(lm.signbit({a[0]}) != 0)",
    Op.LOGICAL_NOT: lambda n, a: f"({a[0]} == 0)",
    Op.INVERT: lambda n, a: f"({a[0]} == 0)" if n.dtype.kind == "b" else f"(~{a[0]})",
    Op.DEG2RAD: lambda n, a: _ratio(n, a, np.pi, 180),
    Op.RAD2DEG: lambda n, a: _ratio(n, a, 180, np.pi),
    Op.ADD: bool_or_infix("|", "+"),
    Op.SUB: infix("-"),
    Op.MUL: bool_or_infix("&", "*"),
    Op.TRUEDIV: infix("/"),
    Op.POW: _lm("pow"),
    Op.MAXIMUM: _pick("maximum", ">", nan_wins=True),
    Op.MINIMUM: _pick("minimum", "<", nan_wins=True),
    Op.FMAX: _pick("maximum", ">", nan_wins=False),
    Op.FMIN: _pick("minimum", "<", nan_wins=False),
    **INFIX_RULES,
    Op.WHERE: lambda n, a: f"tl.where({a[0]}, {a[1]}, {a[2]})",
    Op.REAL: IDENT,
    Op.CLIP: _clip,
}


def lower(node: Node, operands: list[Operand]) -> str:
    """The Triton expression computing ``node`` from its operands."""
    if node.op is Op.CAST:
        return convert(operands[0], node.dtype)
    return lower_with(node, operands, RULES, convert)


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
    return node.op in RULES and floats_fit(node) and not zero_pick_by_position(node)


#: Ops that cannot raise an IEEE flag NumPy reports (no NaN from numbers, no infinity from
#: finite values): a Triton kernel checks no flag for them.
QUIET = frozenset({Op.COPY, Op.POS, Op.IOTA, Op.BROADCAST_TO, Op.NEG, Op.ABS, Op.WHERE, Op.REAL})
QUIET |= {Op.MAXIMUM, Op.MINIMUM, Op.FMAX, Op.FMIN, Op.CLIP, Op.SIGN, Op.COPYSIGN}
QUIET |= {Op.FLOOR, Op.CEIL, Op.TRUNC, Op.RINT, Op.DEG2RAD, Op.RAD2DEG}
#: op -> the operand whose zero makes an infinity a division by zero, not an overflow
#: (None: any infinity from finite operands is one: log(0), arctanh(1))
POLES: dict[Op, int | None] = {Op.TRUEDIV: 1, Op.RECIPROCAL: 0, Op.POW: 0, Op.ARCTANH: None}
POLES |= dict.fromkeys((Op.LOG, Op.LOG2, Op.LOG10, Op.LOG1P))
#: Ops whose result below the smallest normal number, from nonzero operands, underflowed
UNDERFLOWS = frozenset({Op.MUL, Op.SQUARE, Op.TRUEDIV, Op.POW, Op.EXP, Op.EXP2, Op.CAST})


_MUL_WRAPS = "({a} != 0) & ({r} // tl.where({a} == 0, {one}, {a}) != {b})"
#: NumPy's integer scalar operators (``ArithKind.SCALAR``), which warn of overflow where they
#: wrap: op -> when the result ``r`` wrapped, for signed and for unsigned integers (C's
#: ``astc_scalar_*`` helpers raise the flag there)
SCALAR_WRAPS: dict[Op, tuple[str, str | None]] = {
    Op.ADD: ("((({a} ^ {r}) & ({b} ^ {r})) < 0)", "({r} < {a})"),
    Op.SUB: ("((({a} ^ {b}) & ({a} ^ {r})) < 0)", "({a} < {b})"),
    Op.NEG: ("({a} == {low})", "({a} != 0)"),
    Op.ABS: ("({a} == {low})", None),
    Op.MUL: (f"((({{a}} == -1) & ({{b}} == {{low}})) | {_MUL_WRAPS})", _MUL_WRAPS),
}


def _scalar_wraps(node: Node, operands: list[Operand], value: str) -> dict[str, str]:
    """The overflow check of NumPy's integer scalar operator ``node``, if it is one."""
    if node.attr is not ArithKind.SCALAR or node.op not in SCALAR_WRAPS:
        return {}
    check = SCALAR_WRAPS[node.op][node.dtype.kind == "u"]
    a = [convert(o, node.dtype) for o in operands] + [""]
    low, one = literal(np.iinfo(node.dtype).min, node.dtype), literal(1, node.dtype)
    return {"over": check.format(a=a[0], b=a[1], r=value, low=low, one=one)} if check else {}


def flag_checks(node: Node, operands: list[Operand], value: str) -> dict[str, str]:
    """NumPy's errstate key -> when ``node`` raised that IEEE flag, as a Triton condition
    over its ``value`` and operands: what the CPU raises for the C target's same operation
    (a NaN from numbers: invalid; an infinity from finite numbers: overflow, or division by
    zero at a pole; a subnormal or zero result of nonzero numbers: underflow). A kernel
    computes these only while NumPy's error state reports one (``FP``)."""
    if node.dtype.kind in "iu":
        return _scalar_wraps(node, operands, value)
    if node.dtype.kind != "f" or node.op in QUIET or not node.inputs:
        return {}
    src = [o for o in operands if o.dtype.kind == "f" and o.value is None]
    if node.op is Op.CAST and not (src and src[0].dtype.itemsize > node.dtype.itemsize):
        return {}
    consts = [float(o.value) for o in operands if o.value is not None]
    finite = [f"(tl.abs({o.expr}) < INF)" for o in src]
    checks = {}
    if not any(math.isnan(c) for c in consts):
        checks["invalid"] = _all(f"({value} != {value})", *(f"({o.expr} == {o.expr})" for o in src))
    if all(math.isfinite(c) for c in consts):
        infinite = _all(f"(tl.abs({value}) == INF)", *finite)
        pole = POLES.get(node.op, -1)
        at = operands[pole] if pole is not None and pole >= 0 else None
        if at is None or at.value is not None:  # the kind known as the kernel is written
            kind = "over" if pole == -1 or (at is not None and at.value != 0) else "divide"
            checks[kind] = infinite
        else:
            zero = f"({at.expr} == 0)"
            checks["divide"], checks["over"] = f"{infinite} & {zero}", f"{infinite} & ~{zero}"
    if node.op in UNDERFLOWS and all(c != 0 for c in consts):
        tiny = literal(np.finfo(node.dtype).tiny, node.dtype)
        nonzero = (f"({o.expr} != 0)" for o in src)
        checks["under"] = _all(f"(tl.abs({value}) < {tiny})", *finite, *nonzero)
    return checks


def _all(*conditions: str) -> str:
    return " & ".join(conditions)
