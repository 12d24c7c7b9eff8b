"""Operands of an elementwise node, the same for every target: what they are, the dtype the op
computes in, and the steps from operands to a target's expression.

A target brings its rule table (op -> expression) and its formatting (a typed literal, a
cast); everything else here is the same for C and Triton: the operands of a kernel's node
(a constant, an array access, another member's value, a scalar argument), the computation
dtype of predicates, ``x**2`` as a product (as NumPy), a ``where``'s condition as a bool.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from astcompile.ir.graph import Node
from astcompile.ir.ops import COMPARISONS, Op
from astcompile.lower.names import value_name
from astcompile.lower.plan import Access, KernelPlan, is_scalar_const
from astcompile.passes.schedule import member_map

#: Ops whose result is real but which compute on their complex operand.
COMPLEX_ARGUMENT = frozenset({Op.ABS, Op.REAL, Op.IMAG})


def as_integer(value: Any, dtype: np.dtype) -> int:
    """``value`` converted to the integer ``dtype`` as NumPy's cast converts it (a cast of
    ``-1`` to uint64 wraps to ``2**64 - 1``: ``uint64_array > -1`` compares so)."""
    with np.errstate(all="ignore"):
        return int(np.asarray(value).astype(dtype)[()])


@dataclass(frozen=True)
class Operand:
    expr: str
    dtype: np.dtype
    weak: bool = False
    value: Any = None  # the Python value of a scalar constant


def kernel_operands(
    plan: KernelPlan,
    node: Node,
    members: set[int],
    load: Callable[[Access], str],
    member: Callable[[Node], str],
    zero: str,
) -> list[Operand]:
    """The operands of ``node`` in a planned kernel: a scalar constant as its value, an array
    by the target's ``load`` of its access, another member by the target's name for its value
    (``member`` may emit it first), a scalar argument as ``s_{name}``. An iota's operand is
    the loop index of the domain axis it follows (the target's ``zero`` where none does)."""
    if node.op is Op.IOTA:
        axis = member_map(node, plan.kernel)[node.attr]
        return [Operand(zero if axis is None else f"i{axis}", node.dtype)]
    ops = []
    for k, src in enumerate(node.inputs):
        if is_scalar_const(src):
            ops.append(Operand("", src.dtype, src.attr.weak, src.attr.value))
        elif (node.id, k) in plan.operand_access:
            ops.append(Operand(load(plan.operand_access[(node.id, k)]), src.dtype))
        elif src.id in members:
            ops.append(Operand(member(src), src.dtype))
        else:  # a scalar argument
            weak = src.op is Op.DIM or src.attr.weak
            ops.append(Operand(f"s_{value_name(src)}", src.dtype, weak))
    return ops


_PREDICATES = COMPARISONS | {Op.ISNAN, Op.ISINF, Op.ISFINITE, Op.SIGNBIT, Op.LOGICAL_NOT}
_PREDICATES |= {Op.LOGICAL_AND, Op.LOGICAL_OR, Op.LOGICAL_XOR}

#: Defined for floats only (NumPy computes integer arguments in float64: the node says so).
FLOAT_ONLY = frozenset(
    {Op.SQRT, Op.CBRT, Op.EXP, Op.EXP2, Op.EXPM1, Op.LOG, Op.LOG2, Op.LOG10, Op.LOG1P}
    | {Op.SIN, Op.COS, Op.TAN, Op.ARCSIN, Op.ARCCOS, Op.ARCTAN, Op.SINH, Op.COSH, Op.TANH}
    | {Op.ARCSINH, Op.ARCCOSH, Op.ARCTANH, Op.TRUEDIV, Op.ARCTAN2, Op.HYPOT, Op.COPYSIGN}
    | {Op.DEG2RAD, Op.RAD2DEG, Op.RECIPROCAL, Op.POW, Op.LOGADDEXP, Op.ERF, Op.ERFC}
)
FLOAT_ARGUMENT = frozenset({Op.ISINF, Op.ISFINITE, Op.SIGNBIT})  #: bool of a float argument


def floats_fit(node: Node) -> bool:
    """Whether a float-only op gets floats (its result, or a predicate's arguments): the
    rules of every target are written for float math there."""
    if node.op in FLOAT_ARGUMENT:
        return all(i.dtype.kind == "f" for i in node.inputs)
    return node.op not in FLOAT_ONLY or node.dtype.kind == "f"


def _weak_example(op: Operand) -> Any:
    kind = op.dtype.kind
    return {"b": False, "f": 0.0, "c": 0j}.get(kind, 0) if op.value is None else op.value


def compute_dtype(node: Node, operands: list[Operand]) -> np.dtype:
    """The type an op computes in: the result's, or for predicates the operands' promotion."""
    if node.op in _PREDICATES:
        args = [_weak_example(o) if o.weak else o.dtype for o in operands]
        return np.result_type(*args)
    if node.op in COMPLEX_ARGUMENT and operands[0].dtype.kind == "c":
        return operands[0].dtype  # abs(z), z.real: computed on z
    if node.op is Op.COMPLEX:
        return operands[0].dtype  # complex(re, im): built from two doubles
    return node.dtype


def lower_with(
    node: Node,
    operands: list[Operand],
    rules: Mapping[Op, Callable[[Node, list[str]], str]],
    convert: Callable[[Operand, np.dtype], str],
    result: Callable[[str], str] = lambda expr: expr,
) -> str:
    """``node``'s expression by a target's ``rules``, its operands made values of the
    computation dtype by the target's ``convert``; ``result`` gives the rule's expression the
    node's type. ``x**2`` and ``x**3`` are products, as NumPy computes them."""
    work = compute_dtype(node, operands)
    if node.op is Op.POW and operands[1].value in (2, 3) and work.kind == "f":
        return "(" + " * ".join([convert(operands[0], work)] * int(operands[1].value)) + ")"
    args = [convert(o, work) for o in operands]
    if node.op is Op.WHERE:  # a constant condition (folded) is a literal, not an expression
        args[0] = convert(operands[0], np.dtype(bool))
    typed = node if work == node.dtype else Node(node.op, (), work, (), None, None, -1)
    return result(rules[node.op](typed, args))  # typed: the rule picks expf vs exp by it


def convert_operand(
    operand: Operand,
    dtype: np.dtype,
    literal: Callable[[Any, np.dtype], str],
    cast: Callable[[str, np.dtype], str],
) -> str:
    """``operand`` as a value of ``dtype`` in a target's language: a constant as the target's
    typed ``literal``, a truth value compared with 0 (not cast), else the target's ``cast``."""
    if operand.value is not None and np.ndim(operand.value) == 0:
        return literal(operand.value, dtype)
    if operand.dtype == dtype:
        return operand.expr
    if dtype.kind == "b":
        return f"({operand.expr} != 0)"
    return cast(operand.expr, dtype)
