"""Which run-time indices are provably in range, so their bounds check can be left out.

A compiled loop must never read or write out of bounds, so ``x[i]`` with a run-time ``i`` is
checked (and counted from the end when negative) on every use. Most indices in real loops are
the loop variable plus a constant, ``for i in range(1, n): x[i] - x[i - 1]``, with ``n`` the
very size the index runs over: there the check provably never fires, and it keeps gcc from
vectorising the loop. Bounds here are inclusive and *affine*: a constant, or a size symbol
plus a constant, so ``i - 1`` over ``range(1, n)`` is ``[0, n - 2]``, inside ``[0, n - 1]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from astcompile.ir.graph import ConstAttr, IndexItem, Node
from astcompile.ir.ops import Op
from astcompile.ir.shapes import Dim, DimOp, SymDim


@dataclass(frozen=True)
class Affine:
    """``base + offset``: ``base`` is a size expression (never negative) or None for 0."""

    base: SymDim | None
    offset: int

    def shifted(self, by: int) -> Affine:
        return Affine(self.base, self.offset + by)


@dataclass(frozen=True)
class Bounds:
    low: Affine
    high: Affine  # inclusive


def affine_dim(d: Dim) -> Affine:
    """A size as ``base + offset`` (``n - 2`` is ``(n, -2)``)."""
    if isinstance(d, int):
        return Affine(None, d)
    if d.op in (DimOp.ADD, DimOp.SUB) and isinstance(d.args[1], int):
        inner = affine_dim(d.args[0])
        return inner.shifted(d.args[1] if d.op is DimOp.ADD else -d.args[1])
    return Affine(d, 0)


def _constant(node: Node) -> int | None:
    if node.op is Op.CONST and isinstance(node.attr, ConstAttr):
        value = node.attr.value
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return int(value)
    return None


def bounds(node: Node, known: dict[int, Bounds]) -> Bounds | None:
    """Inclusive affine bounds of an integer node's value, or None when unknown. ``known``
    holds the loop variables' bounds (see :func:`loop_bounds`)."""
    if node.id in known:
        return known[node.id]
    value = _constant(node)
    if value is not None:
        return Bounds(Affine(None, value), Affine(None, value))
    if node.op is Op.DIM:
        exact = affine_dim(node.attr)
        return Bounds(exact, exact)
    if node.op is Op.CAST and node.dtype.kind in "iu" and node.inputs[0].dtype.kind in "iu":
        return bounds(node.inputs[0], known)
    if node.op in (Op.ADD, Op.SUB):
        left = bounds(node.inputs[0], known)
        step = _constant(node.inputs[1])
        if left is None or step is None:
            return None
        step = step if node.op is Op.ADD else -step
        return Bounds(left.low.shifted(step), left.high.shifted(step))
    return None


def loop_bounds(start: Node, stop: Node, step: int, known: dict[int, Bounds]) -> Bounds | None:
    """Bounds of ``i`` in ``for i in range(start, stop, step)`` inside the body (which runs
    only when the range is not empty), for a constant positive ``step``."""
    if step <= 0:
        return None
    lo, hi = bounds(start, known), bounds(stop, known)
    if lo is None or hi is None:
        return None
    return Bounds(lo.low, hi.high.shifted(-1))


def in_range(value: Bounds | None, size: Dim) -> bool:
    """Whether every value within ``value`` is a valid non-negative index for ``size``."""
    if value is None:
        return False
    low, high, last = value.low, value.high, affine_dim(size).shifted(-1)
    if low.offset < 0:  # a size base is never negative, so base + offset >= offset
        return False
    return high.base == last.base and high.offset <= last.offset


def indexed_shape(shape: Sequence[Dim], items: Sequence[IndexItem]) -> tuple[Dim, ...]:
    """The shape of ``x[items]`` for ``x`` of ``shape``."""
    kept = [1 if i.kind == "newaxis" else i.length for i in items if i.kind != "int"]
    used = sum(1 for i in items if i.kind != "newaxis")
    return (*kept, *shape[used:])
