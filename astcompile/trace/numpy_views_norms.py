"""``np.flip`` and friends (views with a negative step) and ``np.linalg.norm``.

Both are NumPy code built from what the tracer already models: flipping is basic indexing
with ``::-1`` (a view, so writes through it reach the array, as in NumPy), and a norm is a
reduction of ``|x|``, ``x * x`` or ``|x|`` maxima. NumPy computes the 2-norm of a vector with a
BLAS dot product; ours sums the squares in our reduction order, within the documented
summation tolerance.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray


def flip(m: Any, axis: Any = None) -> Any:
    array = m if isinstance(m, SymArray) else np.asarray(m)
    axes = range(array.ndim) if axis is None else B.normalize_axes(axis, array.ndim)
    if array.ndim == 0:
        return array
    flipped = set(axes)
    return array[
        tuple(slice(None, None, -1) if a in flipped else slice(None) for a in range(array.ndim))
    ]


def fliplr(m: Any) -> Any:
    if np.ndim(m) < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def flipud(m: Any) -> Any:
    if np.ndim(m) < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """``np.linalg.norm`` for vectors (``ord`` None, 1, 2, inf, -inf, 0) along one axis or a
    1-D input, and the Frobenius norm (``ord`` None or "fro") of a whole array or two axes."""
    ndim = np.ndim(x)
    if ord == "fro" and (ndim == 1 or isinstance(axis, int)):
        raise ValueError("Invalid norm order 'fro' for vectors")
    if axis is None and ord not in (None, "fro") and ndim > 1:
        raise TraceBreak(
            TraceReason.NOT_SUPPORTED,
            f"np.linalg.norm with ord={ord!r} of a {ndim}-d array runs in NumPy",
        )
    if axis is not None and not isinstance(axis, int):
        axes = tuple(axis)
        if len(axes) != 2 or ord not in (None, "fro"):
            raise TraceBreak(
                TraceReason.NOT_SUPPORTED,
                "np.linalg.norm over two axes other than ord='fro' runs in NumPy",
            )
        return _sum_of_squares(x, axes, keepdims) ** 0.5
    if ord in (None, 2, "fro"):
        return np.sqrt(_sum_of_squares(x, axis, keepdims))
    if x.dtype.kind not in "fc":
        x = x.astype(np.float64)
    magnitude = np.abs(x)
    if ord == 1:
        return magnitude.sum(axis=axis, keepdims=keepdims)
    if ord == np.inf:
        return magnitude.max(axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return magnitude.min(axis=axis, keepdims=keepdims)
    if ord == 0:
        return (x != 0).astype(magnitude.dtype).sum(axis=axis, keepdims=keepdims)
    raise TraceBreak(TraceReason.NOT_SUPPORTED, f"np.linalg.norm with ord={ord!r} runs in NumPy")


def _sum_of_squares(x: Any, axis: Any, keepdims: bool) -> Any:
    if x.dtype.kind not in "fc":
        x = x.astype(np.float64)  # NumPy's norm works in float64 for integers and bools
    if x.dtype.kind == "c":
        squares = x.real * x.real + x.imag * x.imag
    else:
        squares = x * x
    return squares.sum(axis=axis, keepdims=keepdims)


FUNCTIONS = {np.flip: flip, np.fliplr: fliplr, np.flipud: flipud, np.linalg.norm: norm}
