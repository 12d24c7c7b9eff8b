"""Arrays laid out around others: np.meshgrid and np.pad (constant mode).

``np.meshgrid(x, y)`` is each input viewed along its own axis (``x[None, :]``,
``y[:, None]`` for NumPy's default ``indexing='xy'``) and, unless ``sparse=True``, broadcast
to the grid's shape and copied: fused loops, no index arrays. ``np.pad(a, w)`` is a fresh array
filled with the constant and ``a`` stored into its middle, one slice STORE, as
np.concatenate is (trace/numpy_join.py). Other padding modes run in NumPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib._arraypad_impl import _as_pairs

from astcompile.ir import shapes as S
from astcompile.ir.graph import IndexItem
from astcompile.ir.ops import Op
from astcompile.trace import nodes as B
from astcompile.trace import numpy_join
from astcompile.trace.context import current
from astcompile.trace.indexing import store
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.numpy_fill import new_array
from astcompile.trace.numpy_steps_more import pad_step
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, wrap


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple:
    """``np.meshgrid``: a tuple of grids (or, ``sparse``, of views along one axis each)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    if not copy and not sparse:
        raise unsupported("np.meshgrid with copy=False (broadcast views)")
    ndim = len(xi)
    axes = list(range(ndim))
    if indexing == "xy" and ndim > 1:
        axes[0], axes[1] = 1, 0
    views = []
    for x, axis in zip(xi, axes):
        flat = numpy_join.flat(numpy_join.as_array(x))
        views.append(flat[tuple(slice(None) if a == axis else None for a in range(ndim))])
    if sparse:
        return tuple(np.copy(v) for v in views) if copy else tuple(views)
    shape = tuple(views[axes.index(a)].node.shape[a] for a in range(ndim))
    return tuple(_filled_copy(v, shape) for v in views)


def _filled_copy(view: SymArray, shape: tuple) -> SymArray:
    spread = B.broadcast_to(view.node, shape)
    return wrap(current().node(Op.COPY, (spread,), view.dtype, shape))


def _concrete(value: Any) -> Any:
    """Pad widths as Python numbers: sizes and numbers passed in are guarded by value."""
    if isinstance(value, (tuple, list)):
        return [_concrete(v) for v in value]
    if isinstance(value, SymArray):
        raise unsupported("np.pad with widths computed from array values")
    if isinstance(value, SymInt):
        return current().env.specialize(value.dim)
    return value._specialize() if isinstance(value, SymScalar) else value


def _widths(pad_width: Any, ndim: int) -> list[tuple[int, int]]:
    """``(before, after)`` per axis, by NumPy's own ``_as_pairs`` (its rounding and errors)."""
    widths = np.asarray(_concrete(pad_width))
    if widths.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    pairs = _as_pairs(widths, ndim, as_index=True)
    return [(int(b), int(a)) for b, a in pairs]


def pad(
    array: Any,
    pad_width: Any,
    mode: Any = "constant",
    constant_values: Any = 0,
    stat_length: Any = None,
    reflect_type: Any = None,
    end_values: Any = None,
) -> Any:
    """``np.pad(a, w)`` and ``np.pad(a, w, constant_values=c)`` with one constant; the copying
    modes (``"edge"``, ``"reflect"``, ...) are NumPy steps, with their options."""
    options = {"stat_length": stat_length, "reflect_type": reflect_type, "end_values": end_values}
    options = {k: v for k, v in options.items() if v is not None}
    if mode != "constant":
        source = numpy_join.as_array(array)
        return pad_step(source, _widths(pad_width, source.ndim), mode, options)
    if options:
        raise unsupported(f"np.pad with {', '.join(options)}= in mode 'constant'")
    if isinstance(constant_values, (tuple, list)) or (
        isinstance(constant_values, SymArray) and constant_values.ndim
    ):
        raise unsupported("np.pad with a constant per side")
    source = numpy_join.as_array(array)
    widths = _widths(pad_width, source.ndim)
    shape = tuple(S.dim_add(d, b + a) for d, (b, a) in zip(source.node.shape, widths))
    result = new_array(shape, source.dtype, 0)
    if not (isinstance(constant_values, (int, float)) and constant_values == 0):
        result[...] = constant_values  # an element store: NumPy's casts and checks
    middle = tuple(IndexItem("slice", b, d, 1) for d, (b, _) in zip(source.node.shape, widths))
    store(result, middle, source)
    return result


FUNCTIONS: dict[Callable, Callable] = {np.meshgrid: meshgrid, np.pad: pad}
