"""Reductions as data: what each reduction op starts from, folds with and ends with.

One row per op, for every target: the accumulator starts at the fold's identity, each element
is folded in with an elementwise op, partial results (one per chunk of the loop, see
:mod:`astcompile.targets.c.chunks`) are folded together in chunk order, and the result is the
accumulator, cast back (a mean divides it by the count first). How a target writes the fold
(a C compound assignment, an OpenMP clause, ``tl.sum``) is the target's business
(:mod:`astcompile.targets.c.c_reduce` for C).

Float sums and products accumulate in float64 (complex in complex128): over 16M float32
elements a chunked float64 sum is within 1e-6 relative of NumPy's pairwise sum. Float max/min
keep a NaN flag beside the running value, so a NaN anywhere gives NaN as in NumPy while the
fold stays a plain select a vectoriser handles.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from astcompile.ir.graph import Node
from astcompile.ir.ops import Op


@dataclass(frozen=True)
class Reduction:
    """How one reduction op accumulates, whatever the target."""

    fold: Op  #: the binary elementwise op folding a value (or a partial result) in
    identity: Callable[[np.dtype], Any]  #: the accumulator's start value, for its dtype
    wide: bool = False  #: floats accumulate in float64 (complex always in complex128)
    truth: bool = False  #: elements count as truth values (``x != 0``), the result is a bool
    nan_flag: bool = False  #: floats: a NaN folded in makes the result NaN (kept as a flag)
    divides: bool = False  #: the result is the total over the count, less ``ddof`` (mean)


def _zero(dtype: np.dtype) -> Any:
    return dtype.type(0)


def _one(dtype: np.dtype) -> Any:
    return dtype.type(1)


def _lowest(dtype: np.dtype) -> Any:
    """The identity of ``max``: -inf, the smallest integer, or False."""
    if dtype.kind == "f":
        return dtype.type(-np.inf)
    return dtype.type(np.iinfo(dtype).min) if dtype.kind in "iu" else np.False_


def _highest(dtype: np.dtype) -> Any:
    """The identity of ``min``: +inf, the largest integer, or True."""
    if dtype.kind == "f":
        return dtype.type(np.inf)
    return dtype.type(np.iinfo(dtype).max) if dtype.kind in "iu" else np.True_


#: reduction op -> its rule.
RULES: dict[Op, Reduction] = {
    Op.SUM: Reduction(Op.ADD, _zero, wide=True),
    Op.MEAN: Reduction(Op.ADD, _zero, wide=True, divides=True),
    Op.PROD: Reduction(Op.MUL, _one, wide=True),
    Op.MAX: Reduction(Op.MAXIMUM, _lowest, nan_flag=True),
    Op.MIN: Reduction(Op.MINIMUM, _highest, nan_flag=True),
    Op.ANY: Reduction(Op.LOGICAL_OR, lambda dtype: np.False_, truth=True),
    Op.ALL: Reduction(Op.LOGICAL_AND, lambda dtype: np.True_, truth=True),
}


def rule(node: Node) -> Reduction:
    return RULES[node.op]


def acc_dtype(node: Node) -> np.dtype:
    """The accumulator's dtype: bool for truth folds, complex128 for complex sums (a complex
    product overflows where NumPy's does: in its own dtype), float64 for wide float folds,
    else the result's own dtype (an int sum wraps as NumPy's does)."""
    r = rule(node)
    if r.truth:
        return np.dtype(bool)
    if node.dtype.kind == "c" and r.fold is not Op.MUL:
        return np.dtype(np.complex128)
    if r.wide and node.dtype.kind == "f":
        return np.dtype(np.float64)
    return node.dtype


def overflow_total(node: Node) -> float | None:
    """The float64 total from which a float32 total is infinite (half an ulp above float32's
    largest: it rounds up), where a mean's total is held wider than its result (None where
    not). NumPy sums float32 in float32, so its mean of such a total is infinite: the target
    does not divide it."""
    if not rule(node).divides or acc_dtype(node) == node.dtype or node.dtype.kind != "f":
        return None
    info = np.finfo(node.dtype)
    return float(info.max) + 2.0 ** (info.maxexp - info.nmant - 2)


def identity(node: Node) -> Any:
    """The accumulator's start value."""
    return rule(node).identity(acc_dtype(node))


def has_nan_flag(node: Node) -> bool:
    """Whether the accumulator keeps a NaN flag beside its value (float max/min)."""
    return rule(node).nan_flag and node.dtype.kind == "f"
