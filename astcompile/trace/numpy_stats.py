"""Statistics NumPy writes in Python on top of reductions: np.average, np.ptp and
np.count_nonzero.

The tracer follows NumPy's own code (numpy/lib/_function_base_impl.py): without weights an
average is ``a.mean(axis)``; with weights it is ``(a * w).sum(axis) / w.sum(axis)`` in
NumPy's result dtype (float64 for integer and bool data), with weights along one axis
broadcast against that axis. NumPy raises ``ZeroDivisionError`` when a weight sum is zero:
the compiled code checks it when it runs (a CHECK node), as it checks ``assert``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.trace import limits, numpy_join
from astcompile.trace import nodes as B
from astcompile.trace.context import current
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.symbolic import SymArray, SymInt, operand, wrap


def _cast(array: SymArray, dtype: np.dtype) -> SymArray:
    if array.dtype == dtype:
        return array
    return wrap(B.astype(operand(array), dtype), is_scalar=array.is_scalar)


def _same_shape(a: SymArray, b: SymArray) -> bool:
    env = current().env
    return a.ndim == b.ndim and all(map(env.is_eq, a.node.shape, b.node.shape))


def _weights(weights: Any, array: SymArray, axes: tuple[int, ...] | None) -> SymArray:
    """NumPy's ``_weights_are_valid``: weights of ``a``'s shape, or of the shape of ``a``
    along ``axes``, then viewed with size-1 axes elsewhere so they broadcast."""
    wgt = numpy_join.as_array(weights)
    if _same_shape(array, wgt):
        return wgt
    if axes is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    env, along = current().env, [array.node.shape[ax] for ax in axes]
    if wgt.ndim != len(along) or not all(map(env.is_eq, wgt.node.shape, along)):
        raise ValueError(
            "Shape of weights must be consistent with shape of a along specified axis."
        )
    wgt = wgt.transpose(tuple(int(i) for i in np.argsort(axes)))
    key = tuple(slice(None) if ax in axes else None for ax in range(array.ndim))
    return wgt[key]


def _scale(array: SymArray, avg: SymArray) -> SymArray:
    """``avg.dtype.type(a.size / avg.size)``: the count an unweighted average divided by."""
    count = SymInt.of(S.prod(array.node.shape)) / SymInt.of(S.prod(avg.node.shape))
    return wrap(B.cast(operand(count), avg.dtype), is_scalar=True)


def _returned(avg: SymArray, scl: SymArray) -> tuple[SymArray, SymArray]:
    """``returned=True``: the weight sums broadcast to the average's shape (a copy)."""
    if _same_shape(avg, scl):
        return avg, scl
    return avg, np.copy(np.broadcast_to(scl, avg.shape))


def average(
    a: Any,
    axis: Any = None,
    weights: Any = None,
    returned: bool = False,
    *,
    keepdims: Any = np._NoValue,
) -> Any:
    """``np.average``: the mean, or the weighted mean, along ``axis``."""
    array = numpy_join.as_array(a)
    axes = None if axis is None else B.normalize_axes(axis, array.ndim)
    keep = False if keepdims is np._NoValue else bool(keepdims)
    if weights is None:
        avg = array.mean(axes, keepdims=keep)
        return _returned(avg, _scale(array, avg)) if returned else avg
    wgt = _weights(weights, array, axes)
    if isinstance(wgt, SymArray) and wgt.dtype.kind not in "biufc":
        raise unsupported(f"np.average with weights of dtype {wgt.dtype}")
    extra = ("f8",) if array.dtype.kind in "biu" else ()
    target = B.check_dtype(np.result_type(array.dtype, wgt.dtype, *extra))
    scl = _cast(wgt, target).sum(axes, keepdims=keep)
    ok = np.all(scl != 0.0)
    limits.require(ok.node, "ZeroDivisionError", "Weights sum to zero, can't be normalized")
    avg = (_cast(array, target) * _cast(wgt, target)).sum(axes, keepdims=keep) / scl
    return _returned(avg, scl) if returned else avg


def ptp(a: Any, axis: Any = None, out: Any = None, keepdims: Any = np._NoValue) -> Any:
    """``np.ptp``: ``max - min`` along ``axis`` (NumPy's ``_methods._ptp``)."""
    if out is not None:
        raise unsupported("np.ptp with out=")
    array = numpy_join.as_array(a)
    keep = False if keepdims is np._NoValue else bool(keepdims)
    return array.max(axis, keepdims=keep) - array.min(axis, keepdims=keep)


#: NumPy 2.3 returns an ``np.intp`` where older NumPy returned a Python int for a whole count.
_COUNT_IS_INTP = type(np.count_nonzero(np.ones(1))) is np.intp


def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
    """``np.count_nonzero``: the sum of ``a != 0`` as ``np.intp``, along ``axis`` (NaN counts,
    as it is not zero)."""
    array = numpy_join.as_array(a)
    if axis is None and not keepdims and not _COUNT_IS_INTP:
        raise unsupported("np.count_nonzero returning a Python int (NumPy < 2.3)")
    mask = array if array.dtype == np.bool_ else array != 0
    return _cast(mask, np.dtype(np.intp)).sum(axis, keepdims=bool(keepdims))


FUNCTIONS: dict[Callable, Callable] = {
    np.average: average,
    np.ptp: ptp,
    np.count_nonzero: count_nonzero,
}
