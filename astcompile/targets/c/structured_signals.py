"""Float comparisons in a region with nothing else that can raise the invalid flag: C's own;
in a loop that runs scalar, GCC's quiet builtins.

NumPy's ``<`` on NaN is silent and C's raises the invalid flag, which the region's caller reads
as NumPy's "invalid value" warning (jit/fp_errors.py), so floats compare through the quiet
helpers of astc_math.h: a NaN is replaced before the compare. That costs a second vector
compare per element; in a loop that only compares and counts or picks, half its time (a count
of x > t over 65k floats: 3.9 us against 2.2 us, unrolled, in the same harness).

Where no other operation of the region can raise the invalid flag, a raised flag can only come
from a comparison, which NumPy would not have warned of: the region compares with C's ``<``
and, on its way out, clears the flag unless it was raised before the region began. The ops
that can never raise it are listed here (anything not listed keeps the quiet helpers): those
that compute nothing (leaves, views, control), picks, equality, sign bits, NumPy's quiet
minimum/maximum (not np.maximum.at's), integer and boolean arithmetic (never an FP flag of this kind), stores and
casts that convert no float, and float arithmetic whose operands cannot make an invalid
operation (a square, a finite nonzero constant factor or divisor, a finite constant term), in
real floats only: complex ``(inf + 0j) * 2.0`` multiplies inf by the constant's zero imaginary part.
"""

from __future__ import annotations

import numpy as np

from astcompile.ir.attrs import ArithKind
from astcompile.ir.graph import Graph, Node, walk
from astcompile.ir.ops import REGISTRY, Kind, Op
from astcompile.lower.operands import Operand
from astcompile.targets.base import float_or, infix
from astcompile.targets.c.c_rules import RULES, lower
from astcompile.targets.c.ctypes import ctype

#: C's infix comparisons, signalling on NaN.
ORDERED = {Op.LT: "<", Op.LE: "<=", Op.GT: ">", Op.GE: ">="}
_SIGNALLING = {**RULES, **{op: infix(text) for op, text in ORDERED.items()}}
#: The quiet builtins' names (``__builtin_isless``), by comparison.
_BUILTIN = {Op.LT: "less", Op.LE: "lessequal", Op.GT: "greater", Op.GE: "greaterequal"}
#: The comparisons of a loop that runs scalar (a ``while`` loop, or one around it:
#: structured_control.py): GCC's scalar ``__builtin_isless`` is one quiet ``ucomisd``, where
#: astc_less_double replaces a NaN operand through integer masks first (vector code needs that:
#: there GCC's isless signals). Newton's iteration over 100k floats: 3.8 ms against 4.8 ms.
SCALAR_RULES = {
    **RULES,
    **{
        op: float_or(
            lambda n, a, name=name: f"__builtin_is{name}({a[0]}, {a[1]})", infix(ORDERED[op])
        )
        for op, name in _BUILTIN.items()
    },
}
#: Ops whose C raises no invalid flag on any float operands (NaN and infinities included).
QUIET = frozenset(
    {Op.WHERE, Op.COPY, Op.EQ, Op.NE, Op.NEG, Op.ABS, Op.COPYSIGN, Op.SIGN}
    | {Op.MAXIMUM, Op.MINIMUM, Op.FMAX, Op.FMIN, Op.CLIP}
)
_COMPUTES_NOTHING = frozenset({Kind.LEAF, Kind.VIEW, Kind.CONTROL})
#: Clear the invalid flag the comparisons raised, not one raised before the region.
ENTER = "const int astc_invalid_before = astc_invalid_raised();  /* C's < raises it on NaN */"
LEAVE = "if (!astc_invalid_before) astc_invalid_clear();  /* NumPy's comparisons are silent */"


def compares_may_signal(graph: Graph) -> bool:
    """Whether the region compares floats and nothing else in it can raise the invalid flag."""
    nodes = list(walk(graph.nodes()))
    return any(_float_compare(n) for n in nodes) and all(_silent(n) for n in nodes)


def signalling(node: Node, operands: list[Operand]) -> str:
    """C for ``node`` with a float comparison as C's infix operator."""
    return lower(node, operands, _SIGNALLING)


def compared(node: Node) -> tuple[Node, ...]:
    """The operands of the float comparison a float scalar ``where`` picks by, when that
    comparison is in the pick's own dtype (astc_where_less_double fuses the two); else ()."""
    cond = node.inputs[0] if node.op is Op.WHERE else None
    if cond is None or cond.op not in ORDERED or node.shape != () or node.attr is ArithKind.EVERY:
        return ()
    same = all(i.dtype == node.dtype and i.shape == () for i in cond.inputs)
    return cond.inputs if same and node.dtype in (np.float32, np.float64) else ()


def scalar_lower(node: Node, operands: list[Operand], compare: list[str]) -> str:
    """C for ``node`` in a loop that runs scalar; a pick by ``compare`` (its operands' C, from
    :func:`compared`) as one astc_where helper."""
    if not compare:
        return lower(node, operands, SCALAR_RULES)
    helper = f"astc_where_{_BUILTIN[node.inputs[0].op]}_{ctype(node.dtype)}"
    fused = lambda n, a: f"{helper}({compare[0]}, {compare[1]}, {a[1]}, {a[2]})"
    return lower(node, operands, {**SCALAR_RULES, Op.WHERE: fused})


def _float_compare(node: Node) -> bool:
    return node.op in ORDERED and any(i.dtype.kind == "f" for i in node.inputs)


def _silent(node: Node) -> bool:
    floats = [d for d in (node.dtype, *(i.dtype for i in node.inputs)) if d.kind in "fc"]
    if not floats or _float_compare(node):
        return True
    if node.op is Op.STORE:  # a float stored into another dtype is converted: may raise
        return node.inputs[0].dtype == node.inputs[1].dtype
    if node.op is Op.CAST:
        return node.inputs[0].dtype.kind not in "fc"
    if node.attr is ArithKind.INDEXED:  # np.maximum.at's: NumPy warns of a NaN it compares
        return False
    if REGISTRY[node.op].kind in _COMPUTES_NOTHING:
        return True
    same = all(d == node.dtype for d in floats)
    real = node.dtype.kind == "f"  # a complex product or quotient makes inf * 0 of its parts
    return same and (node.op in QUIET or (real and _no_invalid_arithmetic(node)))


def _no_invalid_arithmetic(node: Node) -> bool:
    """IEEE raises invalid for 0 * inf, inf - inf and 0 / 0 or inf / inf only: never for a
    square, a product or quotient by a finite nonzero constant, a sum with a finite one."""
    a = node.inputs
    if node.op is Op.MUL:
        return a[0].id == a[1].id or any(_constant(i, nonzero=True) for i in a)
    if node.op in (Op.ADD, Op.SUB):
        return any(_constant(i, nonzero=False) for i in a)
    return node.op is Op.TRUEDIV and _constant(a[1], nonzero=True)


def _constant(node: Node, nonzero: bool) -> bool:
    if node.op is not Op.CONST or node.shape != ():
        return False
    value = complex(node.attr.value)
    return np.isfinite(value) and (value != 0 or not nonzero)
