"""Scans and neighbour differences: np.cumsum, np.cumprod (functions and methods), np.diff,
np.roll, np.ediff1d and np.trapezoid.

A scan is sequential, so the tracer writes the loop a person would: a fresh array whose first
slice along ``axis`` is the input's, then ``for k in range(1, n): out[..., k] = out[..., k - 1]
+ x[..., k]`` as one LOOP node (trace/loops.py), each step a slice update over the other axes.
That is NumPy's own order (``np.add.accumulate`` adds one element at a time along the axis), so
float results are NumPy's bits, not merely close to them.

``np.diff``, ``np.roll`` and the others need no loop: a difference of two shifted slices, and a
concatenation of the array's two halves, as in NumPy's own Python code
(numpy/lib/_function_base_impl.py and numpy/_core/numeric.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile import quiet
from astcompile.ir import shapes as S
from astcompile.ir.ops import Op
from astcompile.trace import handlers, memory_order, numpy_join
from astcompile.trace import nodes as B
from astcompile.trace.context import current
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.symbolic import SymArray, SymInt, operand, wrap


def _copy(array: SymArray) -> SymArray:
    """A fresh C-ordered buffer: the structured C generator reshapes only its own buffers."""
    return wrap(current().node(Op.COPY, (array.node,), array.dtype, array.node.shape))


def _flat(array: SymArray) -> SymArray:
    """``array.ravel()``; a 0-d array gets a new axis (a view, not a reshape of a copy)."""
    if array.ndim <= 1:
        return array if array.ndim else array[None]
    return _copy(array).reshape(-1)


def _scan_dtype(ufunc: np.ufunc, array: SymArray, dtype: Any) -> np.dtype:
    """NumPy's accumulate dtype, asked of NumPy itself: small ints and bool widen to the
    platform int (uint64 for unsigned ones), floats keep theirs."""
    with quiet.hidden():  # complex to a real dtype: the user's ComplexWarning, not ours
        probe = ufunc.accumulate(np.zeros(1, array.dtype), dtype=dtype)
    return B.check_dtype(probe.dtype)


def _along(axis: int, index: Any) -> tuple:
    """The key picking ``index`` on ``axis`` and everything on the axes before it."""
    return (slice(None),) * axis + (index,)


def _accumulate(ufunc: np.ufunc, array: SymArray, axis: int, target: np.dtype) -> SymArray:
    """``ufunc.accumulate(array, axis)``: the first slice copied, then a native loop."""
    source = array if array.dtype == target else wrap(B.astype(operand(array), target))
    shape = source.node.shape
    out = numpy_join.fresh(shape, target)
    out[_along(axis, slice(0, 1))] = source[_along(axis, slice(0, 1))]

    def step(k: Any) -> tuple:
        out[_along(axis, k)] = ufunc(out[_along(axis, k - 1)], source[_along(axis, k)])
        return ()

    handlers.ac_for(step, (1, SymInt.of(shape[axis]), 1), ())
    return out


def _scan(ufunc: np.ufunc) -> Callable:
    """The handler of ``np.cumsum``/``np.cumprod`` and of the methods of the same names."""

    def handler(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> SymArray:
        name = f"np.cum{'sum' if ufunc is np.add else 'prod'}"
        if out is not None:
            raise unsupported(f"{name} with out=")
        array = numpy_join.as_array(a)
        target = _scan_dtype(ufunc, array, dtype)
        if axis is None or array.ndim == 0:  # NumPy scans a 0-d array as a 1-D one
            array, axis = _flat(array), 0 if axis is None else axis
        (axis,) = B.normalize_axes(axis, array.ndim)
        done = _accumulate(ufunc, array, axis, target)
        # NumPy's result has the array's memory order: the scan (a row kernel where it can
        # be one) is copied into it, one elementwise pass
        return _relaid(done, memory_order.order_of(array))

    return handler


def _check_order(n: Any) -> int:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise unsupported("np.diff with an order n known only at run time")
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    return int(n)


def _edge(value: Any, array: SymArray, axis: int) -> SymArray:
    """A ``prepend=``/``append=`` value; a scalar becomes one slice along ``axis``."""
    part = numpy_join.as_array(value)
    if part.ndim:
        return part
    shape = list(array.node.shape)
    shape[axis] = 1
    return wrap(B.broadcast_to(part.node, tuple(shape)))


def diff(
    a: Any, n: Any = 1, axis: int = -1, prepend: Any = np._NoValue, append: Any = np._NoValue
) -> Any:
    """``x[..., 1:] - x[..., :-1]``, ``n`` times (``!=`` for bool, as NumPy)."""
    order = _check_order(n)
    if order == 0:
        return a
    array = numpy_join.as_array(a)
    if array.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    (axis,) = B.normalize_axes(axis, array.ndim)
    before = [] if prepend is np._NoValue else [_edge(prepend, array, axis)]
    after = [] if append is np._NoValue else [_edge(append, array, axis)]
    if before or after:
        array = numpy_join.concatenate([*before, array, *after], axis)
    op = np.not_equal if array.dtype == np.bool_ else np.subtract
    if 2 <= order <= MAX_EXPANDED and _fills(array.node.shape[axis], order):
        return _expanded(op, array, axis, (order, 0), order)
    for _ in range(order):
        array = op(array[_along(axis, slice(1, None))], array[_along(axis, slice(None, -1))])
    return array


#: The highest ``n`` written as one expression of the input's slices (2**n of them).
MAX_EXPANDED = 3


def _fills(size: S.Dim, order: int) -> bool:
    """Whether the ``order``-th difference along an axis of ``size`` has an element (guarded):
    then every element of every lower difference is read, so computing each one where it is
    read (not in an array of its own) computes each NumPy computes, with its FP flags."""
    return not S.is_runtime(size) and current().env.is_ge(size, order + 1)


def _expanded(
    op: Callable, array: SymArray, axis: int, at: tuple[int, int], total: int
) -> SymArray:
    """The ``order``-th difference from element ``offset`` on (``at``), as the slices of
    ``array`` it reads, for a ``total``-th difference: ``np.diff(a, n=2)`` is ``(a[2:] -
    a[1:-1]) - (a[1:-1] - a[:-2])``, each element computed as NumPy computes it, in one kernel
    where NumPy makes a temporary per order."""
    order, offset = at
    if order == 0:
        return array[_along(axis, slice(offset, (offset - total) or None))]
    later = _expanded(op, array, axis, (order - 1, offset + 1), total)
    return op(later, _expanded(op, array, axis, (order - 1, offset), total))


def _shifts(shift: Any, axis: Any, ndim: int) -> dict[int, int]:
    """Total shift per axis; NumPy broadcasts ``shift`` against ``axis``."""
    pairs = np.broadcast(_concrete_shift(shift), axis)
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    totals: dict[int, int] = {}
    for sh, ax in pairs:
        if not isinstance(sh, (int, np.integer)) or isinstance(sh, (bool, np.bool_)):
            raise unsupported("np.roll with a shift that is not a Python or NumPy int")
        (ax,) = B.normalize_axes(int(ax), ndim)
        totals[ax] = totals.get(ax, 0) + int(sh)
    return totals


def _concrete_shift(shift: Any) -> Any:
    """A shift computed from sizes (``n // 2``) as its value, guarded: it decides where the
    slices cut. A Python int passed in (or a loop's value) stays a break: specialising on each
    value would compile once per shift."""
    if isinstance(shift, (tuple, list)):
        return type(shift)(_concrete_shift(s) for s in shift)
    if isinstance(shift, SymInt):
        return current().env.specialize(shift.dim)
    return shift


def _roll_axis(array: SymArray, shift: int, axis: int) -> SymArray:
    """The last ``shift % n`` elements along ``axis`` moved to the front: two slices joined."""
    size = array.node.shape[axis]
    if shift == 0:
        return array
    cut = S.dim_sub(size, S.dim_mod(shift, S.dim_max(size, 1)))
    if cut == size or cut == 0:
        return array
    cut = SymInt.of(cut)
    tail, head = array[_along(axis, slice(cut, None))], array[_along(axis, slice(None, cut))]
    return numpy_join.concatenate([tail, head], axis)


def roll(a: Any, shift: Any, axis: Any = None) -> SymArray:
    """``np.roll``: a fresh array, the flattened one for ``axis=None``."""
    array = numpy_join.as_array(a)
    if axis is None:
        shape = tuple(SymInt.of(d) for d in array.node.shape)
        return roll(_flat(array), shift, 0).reshape(shape)
    result = array
    for ax, total in _shifts(shift, axis, array.ndim).items():
        result = _roll_axis(result, total, ax)
    return _copy(result) if result is array else result


def _ediff_edge(value: Any, dtype: np.dtype, name: str) -> list[SymArray]:
    if value is None:
        return []
    part = numpy_join.as_array(value)
    if not np.can_cast(part.dtype, dtype, casting="same_kind"):
        raise TypeError(
            f"dtype of `{name}` must be compatible with input `ary` under the `same_kind` rule."
        )
    return [_flat(part)]


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> SymArray:
    """The flattened differences, between ``to_begin`` and ``to_end``, in ``ary``'s dtype."""
    flat = _flat(numpy_join.as_array(ary))
    inner = flat[1:] - flat[:-1]
    before = _ediff_edge(to_begin, flat.dtype, "to_begin")
    after = _ediff_edge(to_end, flat.dtype, "to_end")
    if not before and not after:
        return inner
    return numpy_join.concatenate([*before, inner, *after], dtype=flat.dtype, casting="unsafe")


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """NumPy's formula, ``(d * (y[1:] + y[:-1]) / 2.0).sum(axis)``, along ``axis``."""
    y = numpy_join.as_array(y)
    d = dx
    if x is not None:
        x = numpy_join.as_array(x)
        if x.ndim == 1:  # spacing along ``axis``: NumPy's reshape, as new axes around it
            (where,) = B.normalize_axes(axis, y.ndim)
            d = diff(x)[(None,) * where + (slice(None),) + (None,) * (y.ndim - where - 1)]
        else:
            d = diff(x, axis=axis)
    upper, lower = [slice(None)] * y.ndim, [slice(None)] * y.ndim
    upper[axis], lower[axis] = slice(1, None), slice(None, -1)
    return (d * (y[tuple(upper)] + y[tuple(lower)]) / 2.0).sum(axis)


FUNCTIONS: dict[Callable, Callable] = {
    np.cumsum: _scan(np.add),
    np.cumprod: _scan(np.multiply),
    np.diff: diff,
    np.roll: roll,
    np.ediff1d: ediff1d,
    np.trapezoid: trapezoid,
}

METHODS: dict[str, Callable] = {"cumsum": _scan(np.add), "cumprod": _scan(np.multiply)}


def _relaid(value: Any, perm: tuple[int, ...] | None) -> Any:
    """A copy of the new array ``value`` with its axes in ``perm`` in memory (as itself where
    ``perm`` is None, C order)."""
    if perm is None:
        return value
    moved = B.transpose(value.node, perm)
    copied = wrap(current().node(Op.COPY, (moved,), value.dtype, moved.shape))
    return wrap(B.transpose(copied.node, memory_order.inverse(perm)), base=copied)
