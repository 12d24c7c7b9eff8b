"""NumPy's memory order of new arrays (``order='K'``), kept by computing in it.

NumPy lays a ufunc's result out like its operands: ``a + 0`` of a Fortran-ordered ``a`` is
Fortran-ordered, so ``(a + 0).reshape(-1)`` is a copy, ``.T`` is C-contiguous and ``.flags``
say F. The rule is NumPy's iterator's (runtime/memory_order.py): axes sorted by the operands'
strides, an operand having no say on an axis where it is broadcast or of length one, C order
where operands disagree.

A region keeps that layout without touching the kernels: the op runs on its operands
transposed into that order (for an F-ordered ``a``, ``a.T`` is C-contiguous, so the kernel
reads it with unit stride) and the result is the transpose back, a view of a C-ordered buffer
laid out exactly as NumPy's. A chain of such ops cancels the transposes between them
(:func:`to_order`), so they still fuse into one kernel, and no region breaks.

A ``SymArray``'s ``ranks`` order its strides as :func:`runtime.memory_order.stride_ranks`
does (None: C order, or nothing known): an argument's come from its guarded layout
(runtime/guards.py keys them), a view's from the array it views.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from astcompile.ir import shapes as S
from astcompile.ir.attrs import IndexKind
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.runtime.memory_order import axis_order
from astcompile.trace import nodes as B


def long_axes(shape: Sequence) -> list[int]:
    """Axes that may be longer than one (a size the guards keep at 1 is the int 1)."""
    return [a for a, d in enumerate(shape) if not (type(d) is int and d <= 1)]


def spread(shape: Sequence) -> bool:
    """Whether an array of ``shape`` may be C- or F-ordered but not both: two long axes."""
    return len(long_axes(shape)) >= 2


def inverse(perm: Sequence[int]) -> tuple[int, ...]:
    found = [0] * len(perm)
    for k, p in enumerate(perm):
        found[p] = k
    return tuple(found)


def ranks_of(value: Any) -> list[int]:
    """``value``'s stride ranks (C order's where none are known), 0 on its size-1 axes."""
    shape = value.node.shape
    ranks = value.ranks or tuple(range(len(shape), 0, -1))
    return [0 if type(d) is int and d <= 1 else r for r, d in zip(ranks, shape)]


def order_of(value: Any) -> tuple[int, ...] | None:
    """The axis order of a new array NumPy makes from ``value`` alone (``order='K'``), where
    it is not C order and matters (two long axes)."""
    if value.ranks is None or not spread(value.node.shape):
        return None
    found = axis_order([ranks_of(value)])
    return None if found == tuple(range(value.ndim)) else found


def reshape_copies(value: Any, shape: Sequence) -> bool:
    """Whether NumPy's ``value.reshape(shape)`` is a copy where ours would be a view: ``value``
    is laid out in another order than C's, and NumPy finds no strides for the new shape even
    over memory without gaps in that order (a strided array of that order needs a copy then
    too). Asked of NumPy itself, on a stand-in of the same sizes and stride order that never
    reads memory. Where that stand-in reshapes to a view, the reshape stays one: NumPy decides
    at run time, as before."""
    if order_of(value) is None:
        return False
    sizes = [int(S.hint(d)) for d in value.node.shape]
    strides, step = [0] * len(sizes), 1
    for a in reversed(axis_order([ranks_of(value)])):
        strides[a], step = step, step * max(sizes[a], 1)
    stand_in = as_strided(np.zeros(1, np.uint8), sizes, strides)
    return not _views(stand_in, [int(S.hint(d)) for d in shape])


def _views(stand_in: np.ndarray, shape: list[int]) -> bool:
    """Whether NumPy reshapes ``stand_in`` to ``shape`` without a copy."""
    try:
        stand_in.reshape(shape, copy=False)
    except ValueError:
        return False
    except TypeError:  # NumPy 2.0's reshape has no copy=: setting the shape never copies
        try:
            stand_in.view().shape = shape
        except AttributeError:
            return False
    return True


def of_view(node: Node, base: Any) -> tuple[int, ...] | None:
    """A view's stride ranks: a transpose reorders its base's; a slice, step or broadcast
    keeps them (a broadcast axis had length one: rank 0); of anything else (a reshape, an
    index that drops an axis) nothing is known."""
    if node.op is Op.TRANSPOSE:
        ranks = ranks_of(base)
        return tuple(ranks[a] for a in node.attr)
    if base.ranks is None or node.op is Op.RESHAPE:
        return None
    if node.op is Op.INDEX:
        return _indexed(ranks_of(base), node.attr)
    return tuple(ranks_of(base)) if len(node.shape) == base.ndim else None


def _indexed(ranks: list[int], items: Sequence) -> tuple[int, ...]:
    """Basic indexing keeps the order of the axes it slices, drops those it takes one element
    of, and adds new axes of length one (no say)."""
    found, axis = [], 0
    for item in items:
        if item.kind is IndexKind.NEWAXIS:
            found.append(0)
            continue
        if item.kind is not IndexKind.INT:
            found.append(ranks[axis])
        axis += 1
    return tuple(found)


def _strides(value: Any, shape: Sequence) -> list[int]:
    """``value``'s stride ranks once broadcast to ``shape`` (0 where it has no say)."""
    if not hasattr(value, "ranks") or value.ndim == 0:  # not a traced array (nor 0-d)
        return [0] * len(shape)
    long = set(long_axes(shape))
    found = [0] * (len(shape) - value.ndim) + ranks_of(value)
    return [r if a in long else 0 for a, r in enumerate(found)]


def result_order(values: Sequence, shape: Sequence) -> tuple[int, ...] | None:
    """NumPy's axis order of a new array of ``shape`` made from ``values`` (None: C)."""
    if not spread(shape):
        return None
    found = axis_order([_strides(v, shape) for v in values])
    return None if found == tuple(range(len(shape))) else found


def to_order(node: Node, shape: tuple, perm: tuple[int, ...]) -> Node:
    """``node`` broadcast to ``shape`` with its axes in ``perm`` (a 0-d one as it is); the
    transpose back of an op computed so is undone, not stacked."""
    if node.ndim == 0:
        return node
    if node.op is Op.TRANSPOSE and tuple(node.attr) == inverse(perm) and node.shape == shape:
        return node.inputs[0]
    if tuple(node.shape) != tuple(shape):
        node = B.broadcast_to(node, shape)
    return B.transpose(node, perm)
