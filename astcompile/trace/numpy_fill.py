"""New arrays filled with one value: np.zeros, np.ones, np.empty, np.full and their ``_like``
forms.

Each is a fresh buffer (a COPY of the fill value broadcast to the shape), so a region may
write into it; ``np.empty`` and ``np.empty_like`` are zero-filled (NumPy leaves them
uninitialised: any value is right). Shapes may be sizes (``x.shape[0]``), which stay symbolic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir.ops import Op
from astcompile.trace import memory_order
from astcompile.trace import nodes as B
from astcompile.trace.context import current
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, operand, wrap


def dims(shape: Any) -> tuple:
    """A shape argument (an int, a size, or a sequence of them) as dims; NumPy takes no
    bool or float for a size (``np.zeros(True)`` raises), so neither does the trace."""
    if isinstance(shape, (bool, float, np.bool_, np.floating)):
        raise TypeError(f"expected a sequence of integers or a single integer, got '{shape!r}'")
    items = shape if isinstance(shape, (tuple, list)) else (shape,)
    return tuple(d.dim if isinstance(d, SymInt) else _size(d) for d in items)


def _size(d: Any) -> int:
    if isinstance(d, (bool, np.bool_)):
        raise TypeError("an integer is required")
    if isinstance(d, (float, np.floating)):
        raise TypeError(f"'{type(d).__name__}' object cannot be interpreted as an integer")
    return int(d)


def sym(a: Any) -> SymArray:
    """Any array argument as a SymArray (a constant becomes a CONST node)."""
    return a if isinstance(a, SymArray) else wrap(operand(a).node)


def new_array(shape: tuple, dtype: np.dtype, fill: Any) -> SymArray:
    """A fresh array of ``shape`` and ``dtype`` holding ``fill`` everywhere."""
    B.check_dtype(dtype)
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise ValueError("negative dimensions are not allowed")
    value = operand(fill)
    node = value.node if value.node.dtype == dtype else B.cast(value, dtype)
    spread = B.broadcast_to(node, shape)
    return wrap(current().node(Op.COPY, (spread,), dtype, shape))


def _full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
    """``np.full_like`` and ``np.zeros_like`` & co: a fresh array of ``a``'s shape (or
    ``shape``) and dtype (or ``dtype``)."""
    array = sym(a)
    target = np.dtype(dtype) if dtype is not None else array.dtype
    traced = isinstance(fill_value, (SymArray, SymScalar, SymInt))
    value = fill_value if traced else np.asarray(fill_value).astype(target)[()]
    made = array.node.shape if shape is None else dims(shape)
    return new_like([array] if len(made) == array.ndim else [], made, target, value)


def new_like(values: list, shape: tuple, dtype: np.dtype, fill: Any) -> SymArray:
    """:func:`new_array` in the memory order NumPy gives a new array made from ``values``
    (``order='K'``): made with its axes in that order and handed back transposed."""
    perm = memory_order.result_order(values, shape)
    if perm is None:
        return new_array(shape, dtype, fill)
    moved = new_array(tuple(shape[p] for p in perm), dtype, fill)
    return wrap(B.transpose(moved.node, memory_order.inverse(perm)), base=moved)


def _like(fill: Any) -> Callable:
    """``np.zeros_like(a, dtype=None, ..., shape=None)`` & co (``empty_like`` zero-fills)."""

    def handler(a: Any, dtype: Any = None, shape: Any = None) -> Any:
        return _full_like(a, fill, dtype, shape)

    return handler


def _filled(fill: Any) -> Callable:
    """``np.zeros(shape, dtype)`` & co: a fresh array the region may write into."""

    def handler(shape: Any, dtype: Any = None, order: str = "C") -> Any:
        if order not in ("C", "K", "A"):
            raise unsupported("array creation with order='F'")
        return new_array(dims(shape), np.dtype(float if dtype is None else dtype), fill)

    return handler


def _full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C") -> Any:
    if isinstance(fill_value, SymArray) and fill_value.ndim:
        raise unsupported("np.full with an array fill value")
    if order not in ("C", "K", "A"):
        raise unsupported("array creation with order='F'")
    target = np.dtype(dtype) if dtype is not None else np.asarray(_hint(fill_value)).dtype
    return new_array(dims(shape), target, fill_value)


def _hint(value: Any) -> Any:
    if isinstance(value, SymArray):
        return value.dtype.type(0)
    return getattr(value, "hint", value)


#: np callables that take no array (reached through ``__ac_create``).
CREATION: dict[Callable, Callable] = {
    np.zeros: _filled(0),
    np.ones: _filled(1),
    np.empty: _filled(0),
    np.full: _full,
}

#: np functions that dispatch through ``__array_function__``.
FUNCTIONS: dict[Callable, Callable] = {
    np.zeros_like: _like(0),
    np.ones_like: _like(1),
    np.full_like: _full_like,
    np.empty_like: _like(0),
}
