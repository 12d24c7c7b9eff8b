"""Arrays NumPy builds by repeating another: np.repeat (and ``x.repeat``) with one count, and
np.tile.

Both are a broadcast written into a fresh buffer and viewed with the longer shape, the way a
person would write them with strides: ``np.repeat(x, k, axis)`` is ``x`` with a new axis of
length ``k`` after ``axis``, copied, then that axis merged into ``axis``; ``np.tile(x, (r, s))``
puts a new axis of length ``r`` (``s``) *before* each axis instead. The copy is one fused loop
nest (the broadcast reads each input element ``k`` times), so both backends run it as they run
``np.copy`` and ``reshape``; sizes stay symbolic (``n * k``), so a new size does not recompile.

Per-element counts (``np.repeat(x, [1, 2, 3])``) give a length known only from the counts'
values: those run in NumPy.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.ops import Op
from astcompile.trace import nodes as B
from astcompile.trace import numpy_join
from astcompile.trace.context import current
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, wrap


def _count(value: Any, what: str) -> int:
    """A repeat count as a Python int (a traced Python int is guarded by value); a one-item
    sequence counts as its item, as in NumPy."""
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if isinstance(value, (list, tuple, np.ndarray)) or (
        isinstance(value, SymArray) and value.ndim > 0
    ):
        raise unsupported(f"{what} with a count per element (its length depends on the counts)")
    if isinstance(value, SymArray):
        raise unsupported(f"{what} with a count computed from array values")
    if isinstance(value, SymInt):
        return current().env.specialize(value.dim)
    if isinstance(value, SymScalar):
        value = value._specialize()
    count = operator.index(value)
    if count < 0:
        raise ValueError("negative dimensions are not allowed")
    return count


def _spread(array: SymArray, at: int, count: int) -> SymArray:
    """``array`` with a new axis of length ``count`` at position ``at``, as a fresh buffer."""
    shape = list(array.node.shape)
    key = (slice(None),) * at + (None,)
    widened = array[key]
    shape.insert(at, count)
    spread = B.broadcast_to(widened.node, tuple(shape))
    return wrap(current().node(Op.COPY, (spread,), array.dtype, tuple(shape)))


def _merged(spread: SymArray, shape: list[S.Dim]) -> SymArray:
    return wrap(B.reshape(spread.node, tuple(shape)))


def repeat(a: Any, repeats: Any, axis: Any = None) -> SymArray:
    """``np.repeat(a, k)`` (the flattened array, each element ``k`` times) and
    ``np.repeat(a, k, axis)``."""
    array = numpy_join.as_array(a)
    count = _count(repeats, "np.repeat")
    if axis is None:
        array = numpy_join.flat(array) if array.ndim != 1 else array
        axis = 0
    (axis,) = B.normalize_axes(axis, array.ndim)
    shape = list(array.node.shape)
    shape[axis] = S.dim_mul(shape[axis], count)
    return _merged(_spread(array, axis + 1, count), shape)


def _repeat_method(a: SymArray, repeats: Any, axis: Any = None) -> SymArray:
    return repeat(a, repeats, axis)


def tile(A: Any, reps: Any) -> SymArray:
    """``np.tile``: ``A`` (with leading axes added up to ``len(reps)``) repeated ``reps[i]``
    times along each axis ``i``; always a new array."""
    array = numpy_join.as_array(A)
    counts = tuple(reps) if isinstance(reps, (tuple, list)) else (reps,)
    counts = tuple(_count(c, "np.tile") for c in counts)
    if array.ndim < len(counts):
        array = array[(None,) * (len(counts) - array.ndim) + (Ellipsis,)]
    counts = (1,) * (array.ndim - len(counts)) + counts
    result = array
    for axis, count in enumerate(counts):
        if count == 1:
            continue
        shape = list(result.node.shape)
        shape[axis] = S.dim_mul(count, shape[axis])
        result = _merged(_spread(result, axis, count), shape)
    if result is array:
        return wrap(current().node(Op.COPY, (array.node,), array.dtype, array.node.shape))
    return result


FUNCTIONS: dict[Callable, Callable] = {np.repeat: repeat, np.tile: tile}

METHODS: dict[str, Callable] = {"repeat": _repeat_method}
