"""Arrays NumPy computes from sizes and scalars: np.arange, np.linspace, np.eye, np.identity,
and the triangles np.triu and np.tril.

All of them start from one IOTA node (each element's index along an axis, int64), so they fuse
into their consumers like any elementwise value: ``np.arange(n) * 2.0`` is one loop writing
``i0 * 2.0``, and ``np.triu(m)`` is ``where(col - row >= k, m, 0)`` with no mask in memory.

Values follow NumPy's own formulas, so the eager backend gives NumPy's bits: ``arange`` stores
``start`` and ``start + step`` and fills the rest with ``first + i * (second - first)`` (its
``fill`` loop); ``linspace`` multiplies ``arange(num)`` by ``delta / div``, adds ``start`` and
sets the last element to ``stop`` (numpy/_core/function_base.py). The C backend may contract a
multiply and an add into one FMA (one rounding instead of two): see docs/numpy-support.md.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.ops import Op
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, apply_elementwise, operand, wrap

INT64, FLOAT64 = np.dtype(np.int64), np.dtype(np.float64)


def unsupported(what: str) -> TraceBreak:
    return TraceBreak(TraceReason.NOT_SUPPORTED, f"{what} runs in NumPy")


def iota(shape: tuple, axis: int) -> SymArray:
    """An int64 array of ``shape`` whose elements are their own index along ``axis``."""
    return wrap(current().node(Op.IOTA, (), INT64, tuple(shape), axis % len(shape)))


def _size(value: Any) -> S.Dim | None:
    """A size argument as a dim (symbolic for ``x.shape[0]``); None if it is not an int."""
    if isinstance(value, SymInt):
        return value.dim
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    return None


def _size_arg(value: Any) -> S.Dim:
    """A size that must be an int: a Python scalar argument is guarded by value."""
    size = _size(value)
    size = operator.index(value) if size is None else size
    if isinstance(size, int) and size < 0:
        raise ValueError("negative dimensions are not allowed")
    return size


def _pinned_small(size: S.Dim) -> S.Dim:
    """Sizes 0 and 1 change broadcasting: a derived size traced as 0 or 1 is guarded."""
    if isinstance(size, S.SymDim) and size.hint in (0, 1):
        return current().env.specialize(size)
    return size


def _concrete(value: Any) -> Any:
    """The Python value of an argument NumPy needs as a number (guarded by value)."""
    if isinstance(value, SymArray):
        raise TraceBreak(
            TraceReason.DATA_DEPENDENT_VALUE, "np.arange of an array element needs its value"
        )
    if isinstance(value, (SymInt, SymScalar)):
        value = value._specialize()
    if isinstance(value, (complex, np.complexfloating)):
        raise unsupported("np.arange of complex numbers")
    return value


# --- np.arange ------------------------------------------------------------------------------


def arange(
    start_or_stop: Any, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None
) -> SymArray:
    """``np.arange(stop)`` or ``np.arange(start, stop[, step])``."""
    if device not in (None, "cpu"):
        raise unsupported("np.arange with device=")
    start, stop = (0, start_or_stop) if stop is None else (start_or_stop, stop)
    step = 1 if step is None else step
    target = None if dtype is None else np.dtype(dtype)
    symbolic = _symbolic_arange(start, stop, step, target)
    if symbolic is not None:
        return symbolic
    return _concrete_arange(*(_concrete(v) for v in (start, stop, step)), target)


def _symbolic_arange(start: Any, stop: Any, step: Any, target: np.dtype | None) -> Any:
    """``np.arange(n)``, ``np.arange(1, n + 1, 2)``, ``np.arange(n, dtype=float)`` with ``n`` a
    size: the length stays symbolic (no recompile for a new size). Integer values below 2**53
    are exact in float64, so NumPy's float fill gives the int64 values converted."""
    ends = (_size(start), _size(stop))
    if (
        type(step) is not int
        or step == 0
        or None in ends
        or not any(isinstance(e, S.SymDim) for e in ends)
    ):
        return None
    if target not in (None, INT64, FLOAT64):
        return None
    length = _pinned_small(_length(ends[0], ends[1], step))
    values = iota((length,), 0)
    if step != 1:
        values = values * step
    if ends[0] != 0:
        values = values + SymInt.of(ends[0])
    return values if target in (None, INT64) else values.astype(FLOAT64)


def _length(start: S.Dim, stop: S.Dim, step: int) -> S.Dim:
    """``ceil((stop - start) / step)``, at least 0, as slices count (ir/shapes.py)."""
    span = S.dim_sub(stop, start) if step > 0 else S.dim_sub(start, stop)
    if not current().env.is_ge(span, 1):
        return 0
    return S.dim_floordiv(S.dim_add(span, abs(step) - 1), abs(step))


def _concrete_arange(start: Any, stop: Any, step: Any, target: np.dtype | None) -> SymArray:
    examples = [type(v)(k) for v, k in zip((start, stop, step), (0, 0, 1))]
    dtype = B.check_dtype(np.arange(*examples, dtype=target).dtype)
    if dtype.kind not in "iuf":
        raise unsupported(f"np.arange of dtype {dtype}")
    with np.errstate(all="ignore"):
        span = (stop - start) / step if step != 0 else math.nan
    if not math.isfinite(span):
        np.arange(start, stop, step, dtype=target)  # raises NumPy's own error
        raise unsupported("np.arange with an infinite or NaN bound")
    length = max(0, math.ceil(span))
    with np.errstate(all="ignore"):
        head = np.empty(2, dtype)
        head[0] = start  # NumPy's setitem: casts (and raises) exactly as np.arange does
        head[1] = start + step if length > 1 else start
    return _filled(length, head[0], head[1], dtype)


def _filled(length: int, first: np.generic, second: np.generic, dtype: np.dtype) -> SymArray:
    """NumPy's fill loop: ``first + i * delta`` with ``delta = second - first`` in ``dtype``
    (in int64 for integers, which wrap to ``dtype`` as the C loop's assignment does); the two
    stored elements are kept as stored where the formula would not give them back."""
    with np.errstate(all="ignore"):
        delta = second - first
    wide = INT64 if dtype.kind in "iu" else dtype
    factor, offset = (
        wide.type(v) for v in (np.asarray(delta).astype(wide), np.asarray(first).astype(wide))
    )

    def formula(i: Any) -> Any:
        with np.errstate(all="ignore"):
            index = (
                i
                if dtype.kind in "iu"
                else (i.astype(dtype) if isinstance(i, SymArray) else dtype.type(i))
            )
            scaled = index if factor == 1 else index * factor
            return scaled if dtype.kind in "iu" and offset == 0 else scaled + offset  # -0.0 + 0.0

    index = iota((length,), 0)
    values = formula(index)
    for k, stored in enumerate((first, second)[: min(length, 2)]):
        if (
            np.asarray(formula(wide.type(k))).astype(dtype).tobytes()
            != np.asarray(stored).tobytes()
        ):
            values = apply_elementwise(Op.WHERE, index == k, stored, values)
    return values if values.dtype == dtype else values.astype(dtype)


# --- np.linspace ----------------------------------------------------------------------------


def linspace(
    start: Any,
    stop: Any,
    num: Any = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
    *,
    device: Any = None,
) -> SymArray:
    if retstep or device not in (None, "cpu"):
        raise unsupported("np.linspace with retstep= or device=")
    if any(isinstance(v, SymArray) and v.ndim for v in (start, stop)):
        raise unsupported("np.linspace between arrays")
    if axis not in (0, -1):
        raise np.exceptions.AxisError(axis, 1)
    num = _size(num) if _size(num) is not None else operator.index(num)
    if isinstance(num, int) and num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if np.linspace(_example(start), _example(stop), 2).dtype != FLOAT64:
        raise unsupported("np.linspace computed in a dtype other than float64")
    target = B.check_dtype(FLOAT64 if dtype is None else np.dtype(dtype))
    first, last = _as_float64(start), _as_float64(stop)
    div = S.dim_sub(num, 1) if endpoint else num
    index = iota((num,), 0)
    values = _scaled(index.astype(FLOAT64), last - first, div, start, stop) + first
    if endpoint and _at_least(num, 2):
        values = apply_elementwise(Op.WHERE, index == SymInt.of(S.dim_sub(num, 1)), last, values)
    if target.kind in "iu":
        values = np.floor(values)
    return values if target == FLOAT64 else values.astype(target)


def _scaled(steps: SymArray, delta: SymArray, div: S.Dim, start: Any, stop: Any) -> SymArray:
    """``arange(num) * (delta / div)``, or ``arange(num) / div * delta`` where that step
    underflows to 0 (NumPy's denormal case, gh-5437); ``* delta`` when ``div`` is 0."""
    if not _at_least(div, 1):
        return steps * delta
    step = delta / SymInt.of(div)
    if _constant(start) and _constant(stop):
        with np.errstate(all="ignore"):
            known = (np.float64(stop) - np.float64(start)) / S.hint(div)
        if known != 0 and abs(known) * 2.0**-64 > 0:  # nonzero for any size the call may have
            return steps * step
    return apply_elementwise(Op.WHERE, step == 0.0, steps / SymInt.of(div) * delta, steps * step)


def _at_least(size: S.Dim, bound: int) -> bool:
    return size >= bound if isinstance(size, int) else current().env.is_ge(size, bound)


def _constant(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _example(value: Any) -> Any:
    """What NumPy's dtype rules should see for a linspace bound."""
    if isinstance(value, SymArray):
        return value.dtype.type(1) if value.is_scalar else np.ones((), value.dtype)
    if isinstance(value, (SymInt, SymScalar)):
        return value.hint
    return value


def _as_float64(value: Any) -> SymArray:
    return wrap(B.cast(operand(value), FLOAT64), is_scalar=True)


# --- np.eye, np.identity, np.triu, np.tril ------------------------------------------------


def eye(
    N: Any,
    M: Any = None,
    k: Any = 0,
    dtype: Any = float,
    order: str = "C",
    *,
    device: Any = None,
    like: Any = None,
) -> SymArray:
    if order not in ("C", "K", "A") or like is not None or device not in (None, "cpu"):
        raise unsupported("np.eye with order='F', like= or device=")
    rows = _size_arg(N)
    shape = (rows, rows if M is None else _size_arg(M))
    k = k if isinstance(k, (SymInt, SymScalar)) else operator.index(k)
    diagonal = (iota(shape, 1) - iota(shape, 0)) == k
    return diagonal.astype(B.check_dtype(np.dtype(dtype)))


def identity(n: Any, dtype: Any = None, *, like: Any = None) -> SymArray:
    return eye(n, dtype=float if dtype is None else dtype, like=like)


def _triangle(upper: bool) -> Callable:
    """``np.triu``/``np.tril``: ``where(col - row >= k, m, 0)`` over the last two axes (a 1-D
    ``m`` is broadcast to a square, as NumPy does)."""

    def handler(m: Any, k: Any = 0) -> SymArray:
        array = m if isinstance(m, SymArray) else wrap(operand(np.asarray(m)).node)
        if array.ndim == 0:
            raise unsupported(f"np.{'triu' if upper else 'tril'} of a 0-d array")
        shape = array.node.shape if array.ndim >= 2 else array.node.shape * 2
        offset = iota(shape, len(shape) - 1) - iota(shape, len(shape) - 2)
        keep = offset >= k if upper else offset <= k
        return apply_elementwise(Op.WHERE, keep, array, array.dtype.type(0))

    return handler


#: np callables that take no array (NumPy cannot hand them to the tracer): ``__ac_create``.
CREATION: dict[Callable, Callable] = {
    np.arange: arange,
    np.linspace: linspace,
    np.eye: eye,
    np.identity: identity,
}

#: np functions that dispatch through ``__array_function__``.
FUNCTIONS: dict[Callable, Callable] = {
    np.triu: _triangle(True),
    np.tril: _triangle(False),
    np.linspace: linspace,
}
