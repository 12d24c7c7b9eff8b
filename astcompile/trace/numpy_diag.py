"""np.diag of a vector and np.diagflat: a square array with a vector on one of its diagonals.

Both are elementwise over the result's indices, with no scatter: on diagonal ``k`` the
element in column ``c`` is ``v[c - k]`` (``k > 0``) or ``v[c]`` (``k <= 0``), so the result is
a broadcast of ``v`` padded with ``|k|`` zeros before or after it::

    np.diag(v)      ->  where(col - row == 0, v[None, :], 0)
    np.diag(v, 1)   ->  where(col - row == 1, concatenate((0,), v)[None, :], 0)

The size stays symbolic (``n + |k|``), so a new length does not recompile. ``np.diag`` of a
2-D array is NumPy's read-only *view* of a diagonal, a stride the IR's views do not have: it is
a NumPy step whose result is a view of its input (NUMPY_VIEW), so what the caller gets is
NumPy's own view (read-only, sharing the matrix's memory), and the passes count it as one.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.ops import Op
from astcompile.trace import numpy_join
from astcompile.trace.context import current
from astcompile.trace.numpy_construct import iota, unsupported
from astcompile.trace.numpy_steps import step
from astcompile.trace.numpy_steps_more import dim_min
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, apply_elementwise


def _offset(k: Any) -> int:
    """The diagonal as a Python int: it decides the result's size, so a traced int is
    guarded by value."""
    if isinstance(k, SymArray):
        raise unsupported("np.diag with a diagonal offset computed from array values")
    if isinstance(k, SymInt):
        return current().env.specialize(k.dim)
    if isinstance(k, SymScalar):
        k = k._specialize()
    return operator.index(k)


def _padded(vector: SymArray, k: int) -> SymArray:
    """``vector`` with ``|k|`` zeros before it (``k > 0``) or after it (``k < 0``): the value
    of column ``c`` of the result's diagonal ``k`` is element ``c`` of this."""
    if k == 0:
        return vector
    zeros = numpy_join.as_array(np.zeros(abs(k), vector.dtype))
    return numpy_join.concatenate((zeros, vector) if k > 0 else (vector, zeros))


def _on_diagonal(vector: SymArray, k: int) -> SymArray:
    length = vector.node.shape[0]
    if length == 0:
        raise unsupported("np.diag of an empty vector")
    size = S.dim_add(length, abs(k))
    row, col = iota((size, size), 0), iota((size, size), 1)
    values = _padded(vector, k)[None, :]
    zero = vector.dtype.type(0)
    return apply_elementwise(Op.WHERE, (col - row) == k, values, zero)


def _diagonal(matrix: SymArray, k: int) -> SymArray:
    """``np.diag(matrix, k)``: NumPy's read-only view of diagonal ``k``, of length
    ``max(0, min(rows, cols - k))`` (``min(rows + k, cols)`` below the main diagonal)."""

    def shape(n: list) -> tuple:
        rows, cols = n[0].shape
        rows, cols = (rows, S.dim_sub(cols, k)) if k >= 0 else (S.dim_add(rows, k), cols)
        return (S.dim_max(0, dim_min(rows, cols)),)

    return step("diag", [matrix], {"k": k}, shape, view_of=0)


def diag(v: Any, k: Any = 0) -> SymArray:
    """``np.diag(v, k)``: a new square array of a 1-D ``v``, a view of a 2-D one's diagonal."""
    vector = numpy_join.as_array(v)
    if vector.ndim == 2:
        return _diagonal(vector, _offset(k))
    if vector.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    return _on_diagonal(vector, _offset(k))


def diagflat(v: Any, k: Any = 0) -> SymArray:
    """``np.diagflat(v, k)``: ``np.diag`` of ``v`` flattened."""
    return _on_diagonal(numpy_join.flat(numpy_join.as_array(v)), _offset(k))


FUNCTIONS: dict[Callable, Callable] = {np.diag: diag, np.diagflat: diagflat}
