"""Basic indexing (``x[1:-1, None, ..., 0]``) as one INDEX view node.

Each index entry is normalised against its axis with Python's slice rules on symbolic sizes
(see :func:`astcompile.graph.shapes.slice_extent`), so ``x[1:]`` traced at size 10 is correct at
size 7. Advanced indexing (integer arrays, boolean masks, lists) is not basic indexing: it
breaks the trace and runs in NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.graph import build as B
from astcompile.graph import shapes as S
from astcompile.graph.context import TraceBreak, current
from astcompile.graph.ir import IndexItem


def _as_index(value: Any) -> Any:
    """An index entry as a Python int or a size expression; sizes stay symbolic."""
    from astcompile.graph.symbolic import SymInt

    if isinstance(value, SymInt):
        return value.dim
    if value is None or isinstance(value, (int, np.integer)):
        return None if value is None else int(value)
    if hasattr(value, "__index__") and not hasattr(value, "node"):
        return value.__index__()
    if hasattr(value, "_specialize"):
        return value._specialize()
    raise TraceBreak("advanced indexing", f"indexing with {type(value).__name__} runs in NumPy")


def _expand_ellipsis(key: tuple, ndim: int) -> tuple:
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, "
                         f"but {consumed} were indexed")
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis not in key:
        return key
    at = key.index(Ellipsis)
    return key[:at] + (slice(None),) * (ndim - consumed) + key[at + 1 :]


def _int_item(env: S.ShapeEnv, value: S.Dim, size: S.Dim, axis: int) -> IndexItem:
    if S.hint(value) < 0:
        position = S.dim_add(size, value)
        in_range = env.is_ge(position, 0)
    else:
        position = value
        in_range = env.is_ge(S.dim_sub(size, 1), value)
    if not in_range:
        raise IndexError(f"index {S.hint(value)} is out of bounds for axis {axis} "
                         f"with size {S.hint(size)}")
    return IndexItem("int", position)


def _slice_item(env: S.ShapeEnv, s: slice, size: S.Dim) -> IndexItem:
    bounds = slice(_as_index(s.start), _as_index(s.stop), _as_index(s.step))
    if isinstance(bounds.step, S.SymDim):
        bounds = slice(bounds.start, bounds.stop, env.specialize(bounds.step))
    start, length = S.slice_extent(env, bounds, size)
    return IndexItem("slice", start, length, 1 if bounds.step is None else bounds.step)


def index_items(key: Any, shape: tuple[S.Dim, ...]) -> list[IndexItem]:
    """Normalise a basic-indexing key against ``shape``."""
    env = current().env
    key = _expand_ellipsis(key if isinstance(key, tuple) else (key,), len(shape))
    items: list[IndexItem] = []
    axis = 0
    for entry in key:
        if entry is None:
            items.append(IndexItem("newaxis"))
        elif isinstance(entry, slice):
            items.append(_slice_item(env, entry, shape[axis]))
            axis += 1
        elif isinstance(entry, (bool, np.bool_)):
            raise TraceBreak("advanced indexing", "boolean scalar indices run in NumPy")
        else:
            items.append(_int_item(env, _as_index(entry), shape[axis], axis))
            axis += 1
    return items


def getitem(array: Any, key: Any) -> Any:
    from astcompile.graph.symbolic import wrap

    if isinstance(key, (list, np.ndarray)) or type(key).__name__ == "SymArray":
        raise TraceBreak("advanced indexing", "indexing with arrays or lists runs in NumPy")
    items = index_items(key, array.node.shape)
    node = B.index(array.node, items)
    all_ints = all(i.kind == "int" for i in items) and len(items) == array.ndim
    is_scalar = all_ints or (key == () and array.ndim == 0)
    return wrap(node, is_scalar=is_scalar and node.ndim == 0, base=array)
