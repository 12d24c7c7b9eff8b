"""``np.array([...])`` and ``np.asarray([...])`` of traced values: a fresh array filled by stores.

NumPy cannot hand a list to the tracer (``np.array`` is no ``__array_function__``), so region
bodies call both through ``__ac_create`` (frontend/lowering.py), which lands here while tracing::

    v = np.array([p0 * c - p1 * s, p0 * s + p1 * c])
    ->  v = <new 2-element array>;  v[0] = p0 * c - p1 * s;  v[1] = p0 * s + p1 * c

No new op: every backend that compiles stores compiles literals. The shape comes from the
nesting and the dtype from NumPy itself, asked about example values of the elements' types
(here Python scalars are *not* weak: ``np.array([np.float32(1), 2.0])`` is float64). A list
of plain numbers is left to NumPy and becomes a constant.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile import quiet
from astcompile.trace import numpy_layout
from astcompile.trace.context import TraceBreak
from astcompile.trace.numpy_fill import new_array
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar

_SYMBOLIC = (SymArray, SymScalar, SymInt)


def array(
    object: Any, dtype: Any = None, *, copy: Any = True, order: Any = "K", ndmin: int = 0
) -> Any:
    """The tracer's ``np.array``: NumPy's own unless a traced value is in ``object`` (then a
    traced copy, or a literal built by stores)."""
    if not _holds_symbolic(object):
        return np.array(object, dtype, copy=copy, order=order, ndmin=ndmin)
    _check_options(copy, order, ndmin)
    if isinstance(object, _SYMBOLIC):
        return _of_value(object, dtype, copy=True, order=order)
    return _build(object, dtype)


def asarray(a: Any, dtype: Any = None, order: Any = None, *, copy: Any = None) -> Any:
    """The tracer's ``np.asarray``: like :func:`array`, but a traced array comes back itself
    unless a cast or ``copy=True`` asks for a new one."""
    if not _holds_symbolic(a):
        return np.asarray(a, dtype, order, copy=copy)
    _check_options(copy, order, 0)
    if isinstance(a, _SYMBOLIC):
        return _of_value(a, dtype, copy=copy, order=order)  # None: a copy only if need be
    return _build(a, dtype)


def _holds_symbolic(obj: Any) -> bool:
    if isinstance(obj, (list, tuple)):
        return any(_holds_symbolic(item) for item in obj)
    return isinstance(obj, _SYMBOLIC)


def _unsupported(what: str) -> TraceBreak:
    return TraceBreak(TraceReason.NOT_SUPPORTED, f"{what} runs in NumPy")


def _check_options(copy: Any, order: Any, ndmin: int) -> None:
    """``order="F"``, ``copy=False`` and ``ndmin`` are NumPy's business."""
    if copy is False or order not in (None, "K", "A", "C") or ndmin != 0:
        raise _unsupported("np.array with ndmin=, order='F' or copy=False")


def _of_value(value: Any, dtype: Any, copy: Any, order: Any = None) -> Any:
    """``np.array(v)`` copies a traced array (a 0-d array for a scalar); ``np.asarray`` only
    where asked to (or where a scalar or a cast makes a new array anyway), in the memory
    order asked for (``K``, the array's own, unless ``order="C"``)."""
    return numpy_layout.asarray(value, dtype, order, copy=copy)


def _build(obj: list | tuple, dtype: Any) -> SymArray:
    leaves: list[tuple[tuple[int, ...], Any]] = []
    outer = walk(obj, (), leaves)
    inner = {shape_of(leaf) for _, leaf in leaves}
    if len(inner) != 1:
        raise _unsupported("np.array of an inhomogeneous nesting")
    target = dtype_of(leaves, dtype)
    array = new_array((*outer, *inner.pop()), target, 0)
    for index, leaf in leaves:
        array[index] = leaf
    return array


def walk(obj: Any, index: tuple[int, ...], leaves: list) -> tuple[int, ...]:
    """Collect ``(index, leaf)`` pairs; returns the shape of the nesting below ``index``."""
    if not isinstance(obj, (list, tuple)):
        leaves.append((index, obj))
        return ()
    shapes = {walk(item, (*index, k), leaves) for k, item in enumerate(obj)}
    if len(shapes) > 1:
        raise _unsupported("np.array of a ragged nesting")
    return (len(obj), *(shapes.pop() if shapes else ()))


def shape_of(leaf: Any) -> tuple:
    if isinstance(leaf, SymArray):
        return tuple(leaf.node.shape)
    if isinstance(leaf, (SymScalar, SymInt)):
        return ()
    return np.shape(leaf)


def _example(leaf: Any) -> Any:
    """A value of the leaf's type, as NumPy's dtype discovery sees it."""
    if isinstance(leaf, SymArray):
        return leaf.node.dtype.type(1)
    if isinstance(leaf, (SymScalar, SymInt)):
        return leaf.hint
    return leaf if np.ndim(leaf) == 0 else np.asarray(leaf).dtype.type(1)


def dtype_of(leaves: list, dtype: Any) -> np.dtype:
    """NumPy's dtype for the literal. A traced Python int stored into a narrower integer
    dtype could overflow, which NumPy raises on: left to NumPy."""
    examples = [_example(leaf) for _, leaf in leaves]
    with quiet.hidden():  # complex examples to a real dtype: the user's ComplexWarning, not ours
        target = np.array(examples, dtype=dtype).dtype
    weak_ints = any(
        isinstance(v, (SymScalar, SymInt))
        and isinstance(v.hint, int)
        and not isinstance(v.hint, bool)
        for _, v in leaves
    )
    if dtype is not None and weak_ints and target.kind in "iu" and target != np.int64:
        raise _unsupported("np.array of a traced Python int with a narrower integer dtype")
    return target
