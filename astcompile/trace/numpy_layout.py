"""NumPy's shape and layout functions: reshape, transpose, ravel and flatten, copy, astype,
asarray, broadcast_to, expand_dims and squeeze.

None of them computes a value: each is a view (a RESHAPE, TRANSPOSE or BROADCAST node whose
``base`` is the array, so writes through it reach the array, as in NumPy) or a COPY/cast into a
new array. A NumPy scalar stays a scalar through the shape methods that keep it 0-d.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.ops import Op, is_fresh
from astcompile.trace import memory_order
from astcompile.trace import nodes as B
from astcompile.trace.context import current
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.numpy_fill import dims
from astcompile.trace.numpy_fill import sym as as_sym
from astcompile.trace.numpy_steps import step
from astcompile.trace.symbolic import (
    SymArray,
    in_numpy_order,
    mark_element_view,
    operand,
    viewed,
    wrap,
)


def _keeps_scalar(array: SymArray, result: SymArray) -> SymArray:
    """Shape methods of a NumPy scalar (``s.T``, ``s.reshape(())``, ``np.squeeze(s)``) give a
    scalar back when the result is 0-d; the same methods of a 0-d array give a 0-d array."""
    result.is_scalar = array.is_scalar and result.ndim == 0
    if result.ndim == 0 and not result.is_scalar and result.node.op is Op.INDEX:
        mark_element_view(result)  # np.squeeze(x) of one element: a 0-d view, not x[0]
    return result


def _reshape(
    a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None, copy: Any = None
) -> Any:
    """``np.reshape`` (``newshape=`` is NumPy < 2.4's name of ``shape``)."""
    if order != "C" or copy is not None:
        raise unsupported("reshape with order= or copy=")
    target = newshape if shape is None else shape
    source = as_sym(a)
    array = viewed(source)
    node = B.reshape(array.node, dims(target))
    if memory_order.reshape_copies(array, node.shape):
        copied = _copy(array, "C")  # NumPy reshapes a copy
        node = B.reshape(copied.node, node.shape)
        return _keeps_scalar(source, wrap(node, base=copied))
    return _keeps_scalar(source, wrap(node, base=array))


def _varargs(values: tuple) -> Any:
    """A method's ``*shape``/``*axes``: ``a.reshape(2, 3)`` or ``a.reshape((2, 3))``."""
    return values[0] if len(values) == 1 else values


def _reshape_method(a: Any, *shape: Any, order: str = "C", copy: Any = None) -> Any:
    return _reshape(a, _varargs(shape), order, copy=copy)


def _transpose(a: Any, axes: Any = None) -> Any:
    array = as_sym(a)
    perm = tuple(reversed(range(array.ndim))) if axes is None else tuple(axes)
    return _keeps_scalar(array, wrap(B.transpose(array.node, perm), base=array))


def _transpose_method(a: Any, *axes: Any) -> Any:
    return _transpose(a, _varargs(axes) if axes else None)


def c_contiguous(array: SymArray) -> bool:
    """Whether ``array`` is C-contiguous whenever the code runs: an argument whose guard key
    says so (runtime/guards.py keys the layout), a NumPy scalar, or a new array the region
    made. Of a view, nothing is known (its sizes are run-time values)."""
    if array.node.op is Op.INPUT:
        return array.c_contiguous or array.is_scalar
    return is_fresh(array.node.op)


def _ravel(a: Any, order: str = "C") -> Any:
    """``np.ravel``: a view only of a C-contiguous array, else a copy, even where a reshape
    would be a view (``x[::2].ravel()``). Where the layout is not known before the code runs,
    NumPy's own ravel decides (a step that may be a view of ``a``)."""
    array = as_sym(a)
    if order != "C" or c_contiguous(array):
        return _reshape(array, -1, order=order)

    result = step("ravel", [array], {}, lambda n: (S.prod(n[0].shape),), view_of=0)
    result.view_of, array.has_views = array, True  # a write through it may reach ``a``
    return result


def _flatten(a: Any, order: str = "C") -> Any:
    return _copy(_reshape(a, -1, order=order))


def _copy(a: Any, order: str = "K") -> Any:
    """``np.copy``: always an array, even of a NumPy scalar (``s.copy()`` keeps the scalar);
    in the memory order of ``a`` (``order="K"``, memory_order.py) or C's (``x.copy()``)."""
    array = as_sym(a)

    def make(ops: list) -> Any:
        return current().node(Op.COPY, (ops[0].node,), array.dtype, ops[0].node.shape)

    if order in ("K", "A"):
        return in_numpy_order([array], [operand(array)], make)
    if order == "F":  # the transpose's C copy, transposed back
        return _transpose(wrap(make([operand(_transpose(array))])))
    return wrap(make([operand(array)]))


def _copy_method(array: SymArray, order: str = "C") -> Any:
    return _keeps_scalar(array, _copy(array, order))


def _astype(
    a: Any, dtype: Any, order: str = "K", casting: str = "unsafe", copy: bool = True
) -> Any:
    array = as_sym(a)
    target = np.dtype(dtype)
    if not np.can_cast(array.dtype, target, casting=casting):
        raise TypeError(
            f"Cannot cast array data from {array.dtype} to {target} "
            f"according to the rule '{casting}'"
        )
    if target == array.dtype:
        return _copy_method(array) if copy else array
    if order == "F":  # the transpose's C cast, transposed back
        cast = B.astype(operand(_transpose(array)), target)
        return _transpose(wrap(cast, is_scalar=array.is_scalar))
    if order not in ("K", "A"):
        return wrap(B.astype(operand(array), target), is_scalar=array.is_scalar)
    make = lambda ops: B.astype(ops[0], target)
    return in_numpy_order([array], [operand(array)], make, is_scalar=array.is_scalar)


def asarray(a: Any, dtype: Any = None, order: Any = None, *, copy: Any = None) -> Any:
    """``np.asarray``: the array itself, or a 0-d array where ``a`` is a NumPy scalar, or a
    new array where a cast or ``copy=True`` asks for one."""
    array = as_sym(a)
    if copy is False and dtype is not None and np.dtype(dtype) != array.dtype:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    if dtype is not None and np.dtype(dtype) != array.dtype:
        return _astype(array, dtype, "C" if order == "C" else "K")
    if array.is_scalar or copy:
        return _copy(
            array, "C" if order == "C" else "K"
        )  # NumPy makes a new 0-d array of a scalar; its own node, boxed so
    return array


def _ascontiguousarray(a: Any, dtype: Any = None) -> Any:
    """Like ``np.asarray``, but NumPy makes a 0-d input one-dimensional."""
    array = asarray(a, dtype)
    return _reshape(array, (1,)) if array.ndim == 0 else array


def _broadcast_to(array: Any, shape: Any, subok: bool = False) -> Any:
    array = viewed(as_sym(array))
    return wrap(B.broadcast_to(array.node, dims(shape)), base=array)


def _expand_dims(a: Any, axis: Any) -> Any:
    array = as_sym(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out_ndim = array.ndim + len(axes)
    new_axes = B.normalize_axes(axes, out_ndim)
    key = tuple(None if i in new_axes else slice(None) for i in range(out_ndim))
    return array[key]


def _squeeze(a: Any, axis: Any = None) -> Any:
    array = as_sym(a)
    shape = array.node.shape
    axes = (
        [i for i, d in enumerate(shape) if d == 1]
        if axis is None
        else B.normalize_axes(axis, array.ndim)
    )
    if any(shape[i] != 1 for i in axes):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    if not axes and not array.is_scalar:
        return array  # NumPy returns the array itself, not a new view
    return _keeps_scalar(
        array, array[tuple(0 if i in axes else slice(None) for i in range(array.ndim))]
    )


FUNCTIONS: dict[Callable, Callable] = {
    np.reshape: _reshape,
    np.transpose: _transpose,
    np.ravel: _ravel,
    np.copy: _copy,
    np.ascontiguousarray: _ascontiguousarray,
    np.asarray: asarray,
    np.broadcast_to: _broadcast_to,
    np.expand_dims: _expand_dims,
    np.squeeze: _squeeze,
}
METHODS: dict[str, Callable] = {
    "reshape": _reshape_method,
    "transpose": _transpose_method,
    "ravel": _ravel,
    "flatten": _flatten,
    "copy": _copy_method,
    "astype": _astype,
    "squeeze": _squeeze,
}
