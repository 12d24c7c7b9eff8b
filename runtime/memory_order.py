"""NumPy's axis order for new arrays (``order='K'``), as its iterator computes it.

A ufunc's output, ``np.copy``, ``astype`` and the ``*_like`` functions lay a new array out in
the order of their operands' strides. NumPy's iterator (``npyiter_find_best_axis_ordering``)
sorts the axes by a stable insertion sort, comparing two axes by every operand whose strides
on both are nonzero (an axis of length one, or broadcast, has stride 0 and no say): it moves
an axis outward only when every such operand has the larger stride on it, so where operands
disagree, C order wins. This module is that rule, on strides only (no compiler imports): the
guard key names an argument's order by it (runtime/guards.py), and the tracer applies it to
the orders it knows (trace/memory_order.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def axis_order(strides: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The axes from the largest stride to the smallest, for operands of these strides (one
    list per operand, 0 where it has no say), as NumPy's iterator orders them."""
    ndim = len(strides[0]) if strides else 0
    perm = list(reversed(range(ndim)))  # smallest stride first, as NumPy sorts
    for i0 in range(1, ndim):
        at, j0 = i0, perm[i0]
        for i1 in range(i0 - 1, -1, -1):
            verdict = _outward(strides, j0, perm[i1])
            if verdict is None:
                continue
            if not verdict:
                break
            at = i1
        perm.insert(at, perm.pop(i0))
    return tuple(reversed(perm))


def _outward(strides: Sequence[Sequence[int]], j0: int, j1: int) -> bool | None:
    """Whether axis ``j1`` has the larger stride for every operand with a say (None: none
    has one)."""
    verdict = None
    for s in strides:
        if s[j0] != 0 and s[j1] != 0:
            if abs(s[j1]) <= abs(s[j0]):
                return False
            verdict = True
    return verdict


def stride_ranks(a: np.ndarray) -> tuple[int, ...]:
    """``a``'s strides as far as the rule reads them: 0 on an axis of length one or of
    stride 0 (broadcast), else the rank of its size among the others (1: the smallest)."""
    strides = [abs(s) if n != 1 else 0 for s, n in zip(a.strides, a.shape)]
    if len(strides) == 2:  # the common case, on every call of a strided argument's guard
        s0, s1 = strides
        if s0 and s1:
            return 1 + (s0 > s1), 1 + (s1 > s0)
        return int(s0 > 0), int(s1 > 0)
    sizes = sorted(set(strides) - {0})
    return tuple(sizes.index(s) + 1 if s else 0 for s in strides)


def order_of(ranks: Sequence[int]) -> tuple[int, ...] | None:
    """The axis order NumPy gives a new array made from one array of these stride ranks;
    None where that is C order."""
    found = axis_order([ranks])
    return None if found == tuple(range(len(ranks))) else found


def whole_items(a: np.ndarray) -> bool:
    """Every stride of ``a`` is a whole number of its items (kernels index in items)."""
    size = a.itemsize
    return not size or all(s % size == 0 for s in a.strides)


def layout_class(a: np.ndarray) -> str:
    """The guard key's layout: ``C``, ``F``, or ``S`` (strided) followed by the stride ranks
    that decide the layout of what NumPy makes from it (``S12``: a ``x.T[::2]``, ``S00``: a
    broadcast scalar); a bare ``S`` for one axis or more than nine, whose ranks are not kept;
    ``P`` where a stride is no whole number of items (a field of a structured array), which the
    kernels cannot index: the trace refuses it."""
    flags = a.flags
    if flags.c_contiguous:
        return "C"
    if flags.f_contiguous:
        return "F"
    if not whole_items(a):
        return "P"
    ranks = stride_ranks(a)
    return "S" + ("".join(map(str, ranks)) if 2 <= a.ndim <= 9 else "")


def known_ranks(a: np.ndarray) -> tuple[int, ...] | None:
    """The stride ranks the guard key holds of ``a`` (None: not kept, or of one axis, which
    never has a say: the rule compares two axes)."""
    return stride_ranks(a) if 2 <= a.ndim <= 9 else None
