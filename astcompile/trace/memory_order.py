"""NumPy's memory order of new arrays (``order='K'``), kept by computing in it.

NumPy lays a ufunc's result out like its operands: ``a + 0`` of a Fortran-ordered ``a`` is
Fortran-ordered, so ``(a + 0).reshape(-1)`` is a copy, ``.T`` is C-contiguous and
``.flags`` say F. The rule, measured against NumPy 2 (the ufunc iterator): the operands that
span the result (no broadcast axis) and have two or more axes longer than one each have an
axis order (their strides, largest first); where they all agree, the result has it, else C
order. Broadcast operands, scalars and arrays with one long axis do not count.

A region keeps that layout without touching the kernels: the op runs on the operands
transposed into that order (for an F-ordered ``a``, ``a.T`` is C-contiguous, so the kernel
reads it with unit stride) and the result is the transpose back, a view of a C-ordered
buffer laid out exactly as NumPy's. A chain of such ops cancels the transposes between them
(:func:`to_order`), so they still fuse into one kernel.

A ``SymArray``'s ``perm`` is its axes from the largest stride to the smallest, where that is
not C order (None: C order, or nothing known): an argument's comes from its guarded layout
(runtime/guards.py keys C, F and strided), a view's from the array it views.
"""

from __future__ import annotations

from collections.abc import Sequence

from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.trace import build as B


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


def of_input(c_contiguous: bool, f_contiguous: bool, ndim: int) -> tuple[int, ...] | None:
    """An argument's order from its guarded layout class: F order reverses the axes."""
    if f_contiguous and not c_contiguous and ndim >= 2:
        return tuple(reversed(range(ndim)))
    return None


def of_transpose(base_perm: tuple[int, ...] | None, axes: Sequence[int]) -> tuple | None:
    """Axis ``k`` of ``x.transpose(axes)`` is axis ``axes[k]`` of ``x``: the same memory in
    the order of the new axis numbers."""
    order = base_perm if base_perm is not None else tuple(range(len(axes)))
    where = inverse(axes)
    found = tuple(where[a] for a in order)
    return None if found == tuple(range(len(axes))) else found


def of_view(node: Node, base_perm: tuple[int, ...] | None, base_shape: Sequence) -> tuple | None:
    """A view's order: a transpose reorders its base's axes; a slice or step keeps them (its
    strides keep their order); of anything else (a reshape, an index that drops an axis)
    nothing is known."""
    if node.op is Op.TRANSPOSE:
        return of_transpose(base_perm, node.attr)
    if base_perm is not None and len(node.shape) == len(base_shape) and node.op is not Op.RESHAPE:
        return base_perm
    return None


def _key(perm: tuple[int, ...] | None, shape: Sequence) -> tuple[int, ...]:
    """The order of the long axes only: size-1 axes have no say in the layout."""
    long = set(long_axes(shape))
    return tuple(a for a in (perm or range(len(shape))) if a in long)


def result_order(values: Sequence, shape: Sequence) -> tuple[int, ...] | None:
    """NumPy's order of an elementwise result of ``shape`` from ``values`` (None: C)."""
    from astcompile.trace.symbolic import SymArray

    if not spread(shape):
        return None
    counted = [
        v
        for v in values
        if isinstance(v, SymArray)
        and v.ndim == len(shape)
        and long_axes(v.node.shape) == long_axes(shape)
    ]
    keys = {_key(v.perm, shape) for v in counted}
    if len(keys) != 1 or counted[0].perm is None:
        return None
    return counted[0].perm


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
