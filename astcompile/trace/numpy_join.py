"""Arrays NumPy assembles from other arrays: concatenation (np.concatenate, np.stack,
np.hstack, np.vstack, np.column_stack) and outer products (np.outer, ``ufunc.outer``).

A concatenation is a fresh buffer filled by one slice STORE per part, the effect
``out[:, a:b] = part`` is (trace/indexing.py), so the structured C generator and the eager
interpreter run it as they run any slice assignment; sizes add up symbolically
(``n + m``, no recompile for new sizes). An outer product is a broadcast:
``np.add.outer(a, b)`` is ``a[..., None, None] + b`` for a 2-D ``b``, fused like any ufunc.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import reduce
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.graph import IndexItem, IndexKind
from astcompile.ir.ops import Op
from astcompile.trace import handlers
from astcompile.trace import nodes as B
from astcompile.trace.context import current
from astcompile.trace.indexing import store
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.numpy_fill import new_array, new_like
from astcompile.trace.symbolic import SymArray, operand, wrap


def as_array(value: Any) -> SymArray:
    """A part as ``np.asarray`` sees it: a Python scalar becomes a strong 0-d array."""
    if isinstance(value, SymArray):
        return value
    if isinstance(value, (bool, int, float, complex, np.ndarray, np.generic, list, tuple)):
        array = np.asarray(value)
        return wrap(B.const_operand(array[()] if array.ndim == 0 else array).node)
    return wrap(operand(value).node)  # a scalar argument or a size: its own dtype


def _parts(arrays: Any, what: str) -> list[SymArray]:
    if isinstance(arrays, SymArray) or not isinstance(arrays, (list, tuple)):
        raise unsupported(f"np.{what} of something other than a list or tuple of arrays")
    if not arrays:
        raise ValueError(f"need at least one array to {what}")
    return [as_array(a) for a in arrays]


def _result_dtype(parts: Sequence[SymArray], dtype: Any, casting: str) -> np.dtype:
    target = np.result_type(*(p.dtype for p in parts)) if dtype is None else np.dtype(dtype)
    for part in parts:
        if not np.can_cast(part.dtype, target, casting=casting):
            raise TypeError(
                f"Cannot cast array data from {part.dtype!r} to {target!r} "
                f"according to the rule '{casting}'"
            )
    return B.check_dtype(target)


def _check_shapes(parts: Sequence[SymArray], axis: int | None) -> None:
    """NumPy's errors: equal ndim, and equal sizes on every axis but ``axis``."""
    env, first = current().env, parts[0].node.shape
    for k, part in enumerate(parts[1:], 1):
        if part.ndim != len(first):
            raise ValueError(
                f"all the input arrays must have same number of dimensions, but the "
                f"array at index 0 has {len(first)} dimension(s) and the array at "
                f"index {k} has {part.ndim} dimension(s)"
            )
        for a, (want, have) in enumerate(zip(first, part.node.shape)):
            if a != axis and not env.is_eq(want, have):
                raise ValueError(
                    f"all the input array dimensions except for the concatenation "
                    f"axis must match exactly, but along dimension {a}, the array "
                    f"at index 0 has size {S.hint(want)} and the array at index {k} "
                    f"has size {S.hint(have)}"
                )


def fresh(shape: tuple, dtype: np.dtype) -> SymArray:
    """A new array the parts are stored into (zero-filled: every element is then written)."""
    return new_array(shape, dtype, 0)


def concatenate(
    arrays: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None, casting: str = "same_kind"
) -> SymArray:
    if out is not None:
        raise unsupported("np.concatenate with out=")
    parts = _parts(arrays, "concatenate")
    if axis is None:
        parts, axis = [flat(p) for p in parts], 0
    if parts[0].ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    (axis,) = B.normalize_axes(axis, parts[0].ndim)
    _check_shapes(parts, axis)
    target = _result_dtype(parts, dtype, casting)
    shape = list(parts[0].node.shape)
    shape[axis] = reduce(S.dim_add, (p.node.shape[axis] for p in parts))
    result = new_like(parts, tuple(shape), target, 0)  # NumPy's: in the parts' memory order
    whole = tuple(IndexItem(IndexKind.SLICE, 0, d, 1) for d in shape[:axis])
    offset: S.Dim = 0
    for part in parts:
        length = part.node.shape[axis]
        store(result, (*whole, IndexItem(IndexKind.SLICE, offset, length, 1)), part)
        offset = S.dim_add(offset, length)
    return result


@handlers.register
def stack(
    arrays: Any, axis: int = 0, out: Any = None, *, dtype: Any = None, casting: str = "same_kind"
) -> SymArray:
    if out is not None:
        raise unsupported("np.stack with out=")
    parts = _parts(arrays, "stack")
    env, first = current().env, parts[0].node.shape
    for part in parts[1:]:
        same = part.ndim == len(first) and all(map(env.is_eq, first, part.node.shape))
        if not same:
            raise ValueError("all input arrays must have the same shape")
    (axis,) = B.normalize_axes(axis, len(first) + 1)
    key = (slice(None),) * axis + (None,)
    return concatenate([p[key] for p in parts], axis, dtype=dtype, casting=casting)


def _at_least(part: SymArray, ndim: int) -> SymArray:
    """``np.atleast_1d``/``np.atleast_2d``: a 0-d array becomes (1,) / (1, 1), a 1-D (1, n)."""
    missing = ndim - part.ndim
    return part[(None,) * missing + (Ellipsis,)] if missing > 0 else part


def hstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> SymArray:
    parts = [_at_least(p, 1) for p in _parts(tup, "concatenate")]
    return concatenate(parts, 0 if parts[0].ndim == 1 else 1, dtype=dtype, casting=casting)


def vstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> SymArray:
    parts = [_at_least(p, 2) for p in _parts(tup, "concatenate")]
    return concatenate(parts, 0, dtype=dtype, casting=casting)


def column_stack(tup: Any) -> SymArray:
    """1-D parts become columns (``(n,)`` -> ``(n, 1)``); 2-D parts are joined on axis 1."""
    parts = [p if p.ndim >= 2 else _at_least(p, 2).T for p in _parts(tup, "concatenate")]
    return concatenate(parts, 1)


def flat(part: SymArray) -> SymArray:
    """``part.ravel()`` of a copy: the structured C generator reshapes only its own buffers."""
    if part.ndim == 1:
        return part
    copied = current().node(Op.COPY, (part.node,), part.dtype, part.node.shape)
    return wrap(copied).reshape(-1)


def outer(a: Any, b: Any, out: Any = None) -> Any:
    """``np.outer``: both inputs flattened, ``a[:, None] * b[None, :]``."""
    if out is not None:
        raise unsupported("np.outer with out=")
    return flat(as_array(a))[:, None] * flat(as_array(b))[None, :]


def ufunc_outer(ufunc: np.ufunc, inputs: tuple, kwargs: dict) -> Any:
    """``np.add.outer(a, b)``: ``a[..., None * b.ndim] + b`` (inputs as arrays, as NumPy)."""
    if len(inputs) != 2 or ufunc.nin != 2 or any(v is not None for v in kwargs.values()):
        raise unsupported(f"np.{ufunc.__name__}.outer with these arguments")
    left, right = (as_array(v) for v in inputs)
    return ufunc(left[(Ellipsis,) + (None,) * right.ndim], right)


FUNCTIONS: dict[Callable, Callable] = {
    np.concatenate: concatenate,
    np.stack: stack,
    np.hstack: hstack,
    np.vstack: vstack,
    np.column_stack: column_stack,
    np.outer: outer,
}
