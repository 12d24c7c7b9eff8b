"""Basic indexing (``x[1:-1, None, ..., 0]``) as one INDEX view node.

Each index entry is normalised against its axis with Python's slice rules on symbolic sizes
(see :func:`astcompile.ir.shapes.slice_extent`), so ``x[1:]`` traced at size 10 is correct at
size 7. Boolean masks are modelled in :mod:`astcompile.trace.masks`; other advanced indexing
(integer arrays, lists) breaks the trace and runs in NumPy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.graph import DynIndex, IndexItem, IndexKind, Node, StoreAttr
from astcompile.ir.ops import Op
from astcompile.trace import gather, handlers, limits, masks, unions
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.numpy_sequences import stored
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, operand, viewed, wrap


def _as_index(value: Any) -> Any:
    """An index entry as a Python int or a size expression; sizes stay symbolic."""
    if isinstance(value, SymInt):
        return value.dim
    if value is None or isinstance(value, (int, np.integer)):
        return None if value is None else int(value)
    if hasattr(value, "__index__") and not hasattr(value, "node"):
        return value.__index__()
    if hasattr(value, "_specialize"):
        return value._specialize()
    raise TraceBreak(
        TraceReason.ADVANCED_INDEXING, f"indexing with {type(value).__name__} runs in NumPy"
    )


def _expand_ellipsis(key: tuple, ndim: int) -> tuple:
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed"
        )
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if not any(k is Ellipsis for k in key):  # `in` would compare symbolic entries with ==
        return key
    at = next(i for i, k in enumerate(key) if k is Ellipsis)
    return key[:at] + (slice(None),) * (ndim - consumed) + key[at + 1 :]


def _int_item(
    env: S.ShapeEnv, value: S.Dim, size: S.Dim, axis: int, message: str | None
) -> IndexItem:
    if S.hint(value) < 0:
        position = S.dim_add(size, value)
        in_range = env.is_ge(position, 0)
    else:
        position = value
        in_range = env.is_ge(S.dim_sub(size, 1), value)
    if not in_range:
        raise IndexError(
            message
            or f"index {S.hint(value)} is out of bounds for axis {axis} with size {S.hint(size)}"
        )
    return IndexItem(IndexKind.INT, position)


def _slice_item(env: S.ShapeEnv, s: slice, size: S.Dim) -> IndexItem:
    if s.start is None and s.stop is None and s.step in (None, 1):
        return IndexItem(IndexKind.SLICE, 0, size, 1)  # the whole axis: no decision about its size
    bounds = slice(_as_index(s.start), _as_index(s.stop), _as_index(s.step))
    if isinstance(bounds.step, S.SymDim):
        bounds = slice(bounds.start, bounds.stop, env.specialize(bounds.step))
    start, length = S.slice_extent(env, bounds, size)
    return IndexItem(IndexKind.SLICE, start, length, 1 if bounds.step is None else bounds.step)


def _dynamic_slice(entry: slice, size: S.Dim, dynamic: list[Node]) -> IndexItem | None:
    """``x[i:i + k]`` with a bound known only at run time: a DSLICE whose length is a RUN
    size (NumPy clips the bounds when the code runs, so the length may differ per iteration)."""
    nodes = [_dynamic_node(b, clamp=True) for b in (entry.start, entry.stop)]
    if all(n is None for n in nodes):
        return None
    step = 1 if entry.step is None else _as_index(entry.step)
    if not isinstance(step, int):
        step = current().env.specialize(step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    bounds = []
    for raw, node in zip((entry.start, entry.stop), nodes):
        if node is not None:
            dynamic.append(node)
            bounds.append(DynIndex(len(dynamic)))
        else:
            bounds.append(None if raw is None else _as_index(raw))
    return IndexItem(IndexKind.DSLICE, bounds[0], S.runtime_dim(size), step, bounds[1])


def _dynamic_node(entry: Any, clamp: bool = False) -> Node | None:
    """The int64 node of an index only known at run time (a loop variable, ``idx[k]``); a
    uint64 one above int64 raises as in NumPy, or as a slice bound (``clamp``) is clipped."""
    if (isinstance(entry, SymScalar) and entry.dynamic) or (
        isinstance(entry, SymArray) and entry.ndim == 0
    ):
        node = entry.node
    else:
        return None
    if node.dtype.kind not in "iu":
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
            "and integer or boolean arrays are valid indices"
        )
    return B.cast_node(limits.index_value(node, clamp), np.dtype(np.int64))


def index_items(
    key: Any,
    shape: tuple[S.Dim, ...],
    dynamic: list[Node] | None = None,
    message: str | None = None,
) -> list[IndexItem]:
    """Normalise a basic-indexing key against ``shape``; run-time indices go to ``dynamic``.
    ``message``: Python's IndexError where the array holds a list's items (checks.py)."""
    env = current().env
    key = _expand_ellipsis(key if isinstance(key, tuple) else (key,), len(shape))
    items: list[IndexItem] = []
    axis = 0
    for entry in key:
        node = _dynamic_node(entry) if dynamic is not None else None
        if node is not None:
            dynamic.append(node)
            items.append(IndexItem(IndexKind.INT, DynIndex(len(dynamic), message)))
            axis += 1
        elif entry is None:
            items.append(IndexItem(IndexKind.NEWAXIS))
        elif (
            isinstance(entry, slice)
            and dynamic is not None
            and (item := _dynamic_slice(entry, shape[axis], dynamic)) is not None
        ):
            items.append(item)
            axis += 1
        elif isinstance(entry, slice):
            items.append(_slice_item(env, entry, shape[axis]))
            axis += 1
        elif isinstance(entry, (bool, np.bool_)):
            raise TraceBreak(TraceReason.ADVANCED_INDEXING, "boolean scalar indices run in NumPy")
        else:
            items.append(_int_item(env, _as_index(entry), shape[axis], axis, message))
            axis += 1
    return items


def _check_key(key: Any) -> None:
    entries = key if isinstance(key, tuple) else (key,)
    for entry in entries:
        if isinstance(entry, (list, np.ndarray)) or (
            type(entry).__name__ == "SymArray" and entry.ndim != 0
        ):
            raise TraceBreak(
                TraceReason.ADVANCED_INDEXING, "indexing with arrays or lists runs in NumPy"
            )


@handlers.register
def getitem(array: Any, key: Any, message: str | None = None) -> Any:
    mask = masks.mask_of(key)
    if mask is not None:
        return masks.masked_read(array, mask)
    picked = gather.index_array(key)
    if picked is not None:
        return gather.gather(array, *picked)
    _check_key(key)
    array = viewed(array) if isinstance(array, SymArray) else array
    dynamic: list[Node] = []
    items = index_items(key, array.node.shape, dynamic, message)
    node = B.index(array.node, items, dynamic)
    _keep_index_checks(node, array.node.shape, items, dynamic)
    all_ints = all(i.kind is IndexKind.INT for i in items) and len(items) == array.ndim
    is_scalar = all_ints or (isinstance(key, tuple) and key == () and array.ndim == 0)
    is_scalar = is_scalar and not _has_ellipsis(key)  # x[0, ...] is a 0-d array
    return wrap(node, is_scalar=is_scalar and node.ndim == 0, base=array)


def _keep_index_checks(
    node: Node, shape: tuple[S.Dim, ...], items: list[IndexItem], dynamic: list[Node]
) -> None:
    """Each run-time index's range check, raised even where nothing reads ``node``."""
    axis = 0
    for item in items:
        if item.kind is IndexKind.INT and isinstance(item.start, DynIndex):
            size = shape[axis]
            length = size if isinstance(size, int) else SymInt.of(size).as_node()
            index = dynamic[item.start.input - 1]
            limits.index_check(node, index, length, axis, item.start.message)
        axis += item.kind is not IndexKind.NEWAXIS


def _has_ellipsis(key: Any) -> bool:
    return any(k is Ellipsis for k in (key if isinstance(key, tuple) else (key,)))


def _no_element_views(array: Any) -> None:
    """A store into a 0-d element view (``v = t[1, ...]; v[...] = 5``) or into an array under
    one (``t[1] = 7``, ``v`` read later) runs as written: the backends read the view where it
    was made, as they read ``t[1]``, a NumPy scalar."""
    while array is not None:
        if getattr(array, "element_views", False):
            raise TraceBreak(TraceReason.NOT_SUPPORTED, "a store under a 0-d view x[i, ...]")
        array = getattr(array, "view_of", None)


@handlers.register
def setitem(array: Any, key: Any, value: Any, message: str | None = None) -> None:
    """``array[key] = value`` as a STORE effect on the buffer ``array`` aliases.

    NumPy casts the value unsafely to the array's dtype and broadcasts it to the indexed shape.
    A NumPy scalar (``s = x.sum()``, ``s[...] = 1``) takes no stores.
    """
    if getattr(array, "is_scalar", False):
        name = f"numpy.{array.dtype.type.__name__}"
        raise TypeError(f"'{name}' object does not support item assignment")
    _no_element_views(array)
    mask = masks.mask_of(key)
    if mask is not None:
        return masks.masked_store(array, mask, value)
    picked = gather.index_array(key)
    if picked is not None:
        return gather.scatter(array, *picked, value)
    _check_key(key)
    dynamic: list[Node] = []
    items = tuple(index_items(key, array.node.shape, dynamic, message))
    if isinstance(value, (list, tuple)):
        value = stored(value, array.dtype)  # converted item by item to the array's dtype
    store(array, items, value, dynamic)


def store(
    array: Any, items: tuple[IndexItem, ...], value: Any, dynamic: Sequence[Node] = ()
) -> None:
    """``array[items] = value`` for normalised ``items`` (builders that know the exact slices,
    like np.concatenate, call it directly: no slice clamping, so no size guards)."""
    view_shape = B.index_shape(array.node.shape, items)
    items = tuple(_shift_dynamic(item, 1) for item in items)  # STORE inputs: target, value, *dyn
    if unions.is_union(value):
        value = unions.storable(value, array.dtype)
    source = operand(value)
    if source.node.dtype.kind == "c" and array.dtype.kind != "c":
        raise TraceBreak(
            TraceReason.COMPLEX_TO_REAL_STORE, "NumPy warns and drops the imaginary part"
        )
    stored = source.node
    if stored.dtype != array.dtype:
        check_scalar_store(value, array.dtype, basic=True)
        stored = B.cast(source, array.dtype)
    B.check_broadcast(stored.shape, view_shape)
    stored = _leading_ones_dropped(stored, view_shape)
    ctx = current()
    node = ctx.node(
        Op.STORE, (array.node, stored, *dynamic), array.dtype, array.node.shape, StoreAttr(items)
    )
    ctx.add_effect(node)


def _leading_ones_dropped(value: Node, target: tuple) -> Node:
    """A value with more axes than the place it is stored into (all of them size 1, as
    check_broadcast made sure): NumPy drops them (``m[0] = np.ones((1, 2))`` on a 2-D ``m``),
    except into one element, where its own store says what it does (NumPy 2.4 raises
    ValueError for ``m[-1] = np.array([5.0])``; earlier versions stored it)."""
    extra = len(value.shape) - len(target)
    if extra <= 0:
        return value
    if not target:
        np.zeros(1, value.dtype)[0] = np.zeros((1,) * extra, value.dtype)
    return B.reshape(value, value.shape[extra:])


@handlers.register
def check_scalar_store(value: Any, dtype: np.dtype, basic: bool) -> None:
    """NumPy's checks on a scalar stored into an integer array (see trace/limits.py): a
    Python number must convert, and so must a NumPy scalar in an element or slice store
    (``basic``) into a signed dtype; arrays, 0-d ones too, are cast unsafely."""
    if isinstance(value, SymArray):
        scalar = value.is_scalar
    else:
        scalar = isinstance(value, (SymScalar, SymInt, int, float, np.generic))
    if dtype.kind not in "iu" or not scalar:
        return
    source = operand(value)
    node = source.node
    if node.op is Op.CONST:
        probe = np.zeros(1, dtype)  # NumPy's own store raises its own error while tracing
        with np.errstate(all="ignore"):
            probe[0 if basic else np.ones(1, bool)] = node.attr.value
    elif not (source.weak or (basic and dtype.kind == "i")):
        return
    elif node.dtype.kind == "f":
        limits.require_float_converts(node, dtype)
    elif node.dtype.kind in "iu":
        limits.require_int_fits(node, source.example, dtype)


def _shift_dynamic(item: IndexItem, by: int) -> IndexItem:
    shift = lambda b: replace(b, input=b.input + by) if isinstance(b, DynIndex) else b
    return IndexItem(item.kind, shift(item.start), item.length, item.step, shift(item.stop))
