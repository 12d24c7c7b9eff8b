"""Indexing with an integer array, ``x[idx]`` and ``x[idx] = v``, as native loops.

NumPy's "fancy" indexing by a 1-D integer array picks rows ``x[idx[k]]`` (negative indices
count from the end, out-of-range ones raise IndexError). The tracer writes it as the loop a
person would: a fresh array filled by ``for k: out[k] = x[idx[k]]`` (a gather), and a store as
``for k: x[idx[k]] = v[k]`` (a scatter; with repeated indices the last write wins, as in
NumPy). Both reuse the loop machinery: one LOOP node, run-time bounds-checked indices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.graph.context import TraceBreak


def index_array(key: Any) -> Any:
    """The integer index array of ``x[key]`` when ``key`` is one (a 1-D traced int array)."""
    from astcompile.graph.symbolic import SymArray

    if not isinstance(key, SymArray) or key.ndim == 0 or key.dtype.kind not in "iu":
        return None
    if key.ndim != 1:
        raise TraceBreak("advanced indexing", "indexing with a multi-dimensional integer array "
                                              "runs in NumPy")
    return key


def gather(array: Any, idx: Any) -> Any:
    """``array[idx]``: rows of ``array`` picked by ``idx``, into a fresh array."""
    from astcompile.graph.loops import ac_for
    from astcompile.graph.numpy_api import CREATION

    if array.ndim == 0:
        raise IndexError("too many indices for array: array is 0-dimensional, but 1 were indexed")
    count = idx.shape[0]
    out = CREATION[np.empty]((count, *array.shape[1:]), array.dtype)

    def pick(k: Any) -> tuple:
        out[k] = array[idx[k]]
        return ()

    ac_for(pick, (0, count, 1), ())
    return out


def scatter(array: Any, idx: Any, value: Any) -> None:
    """``array[idx] = value``: ``value`` broadcast to ``(len(idx),) + array.shape[1:]`` and
    copied first (it may read ``array``), then written row by row."""
    from astcompile.graph.loops import ac_for

    if array.ndim == 0:
        raise IndexError("too many indices for array: array is 0-dimensional, but 1 were indexed")
    count = idx.shape[0]
    rows = np.broadcast_to(value, (count, *array.shape[1:])).astype(array.dtype, casting="unsafe")
    rows = np.copy(rows)

    def put(k: Any) -> tuple:
        array[idx[k]] = rows[k]
        return ()

    ac_for(put, (0, count, 1), ())
