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

from astcompile.ir.attrs import ArithKind
from astcompile.ir.ops import Op, is_view
from astcompile.trace import control as C
from astcompile.trace import handlers, limits, numpy_fill
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.control import check
from astcompile.trace.numpy_sequences import as_operand
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, operand, wrap


def _is_index_array(value: Any) -> bool:
    return isinstance(value, SymArray) and value.ndim > 0 and value.dtype.kind in "iu"


def _is_int(value: Any) -> bool:
    """A Python, NumPy or traced integer scalar (not a bool: ``[True, False]`` is a mask)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer, SymInt)):
        return True
    if isinstance(value, SymScalar):
        return value.node.dtype.kind in "iu"
    return isinstance(value, SymArray) and value.ndim == 0 and value.dtype.kind in "iu"


def _listed_rows(entry: Any) -> Any:
    """A list of integers used as an index (``A[[k, p]] = A[[p, k]]``, a row swap) as NumPy
    takes it: an integer array. Other entries are returned as they are."""
    if not (isinstance(entry, list) and entry and all(_is_int(e) for e in entry)):
        return entry

    rows = as_operand(entry)
    return rows if _is_index_array(rows) else entry


def index_array(key: Any) -> tuple[Any, tuple] | None:
    """``(idx, rest)`` when ``x[key]`` indexes the first axis with a 1-D traced int array
    ``idx`` (or a list of integers) and the other axes with basic indices ``rest``; None when
    it does not."""
    entries = key if isinstance(key, tuple) else (key,)
    entries = (_listed_rows(entries[0]), *entries[1:]) if entries else entries
    if not entries or not _is_index_array(entries[0]):
        return None
    idx, rest = entries[0], tuple(entries[1:])
    if idx.ndim != 1 or any(_is_index_array(e) or isinstance(e, list) for e in rest):
        raise TraceBreak(
            TraceReason.ADVANCED_INDEXING,
            "indexing with several or multi-dimensional integer arrays runs in NumPy",
        )
    if any(e is Ellipsis or e is None for e in rest):
        raise TraceBreak(
            TraceReason.ADVANCED_INDEXING, "an integer array index with ... or None runs in NumPy"
        )
    if idx.dtype == np.uint64:  # values past int64 would wrap into valid negative indices
        raise TraceBreak(TraceReason.ADVANCED_INDEXING, "a uint64 index array runs in NumPy")
    return idx.astype(np.int64), rest


def _check_rank(array: Any, rest: tuple) -> None:
    if array.ndim < 1 + len(rest):
        raise IndexError(
            f"too many indices for array: array is {array.ndim}-dimensional, but "
            f"{1 + len(rest)} were indexed"
        )


def gather(array: Any, idx: Any, rest: tuple = ()) -> Any:
    """``array[idx, *rest]``: rows of ``array`` picked by ``idx``, into a fresh array."""
    _check_rank(array, rest)
    count = idx.shape[0]
    row_shape = array[(0, *rest)].shape  # the shape of one picked row, after ``rest``
    out = numpy_fill.CREATION[np.empty]((count, *row_shape), array.dtype)

    def pick(k: Any) -> tuple:
        out[k] = array[(idx[k], *rest)]
        return ()

    handlers.ac_for(pick, (0, count, 1), ())
    return out


def _check_indices(idx: Any, size: Any) -> None:
    """NumPy's IndexError for the first index out of ``-size .. size - 1``, naming it and the
    size (``index 1 is out of bounds for axis 0 with size 1``). No indices (a length 0 is
    specialised): nothing to check, and no first one to name."""
    if idx.node.shape[0] == 0:
        return
    fits = (idx + size >= 0) & (idx < size)
    if not isinstance(fits, SymArray):
        first = idx[np.argmin(fits)]
        check(
            fits.all(), "IndexError", f"index {first} is out of bounds for axis 0 with size {size}"
        )
        return
    ok = fits.all()  # the index to name is looked for only where one is out of range
    (first,) = handlers.ac_if(ok, lambda: (np.int64(0),), lambda: (idx[np.argmin(fits)] + 0,), ())
    values = [operand(v).node for v in (first, size)]
    message = "index {} is out of bounds for axis 0 with size {}"
    limits.require(C.truth_node(ok), "IndexError", message, *values)


def scatter(array: Any, idx: Any, rest: tuple, value: Any, combine: Any = None) -> None:
    """``array[idx, *rest] = value``: ``value`` broadcast to ``(len(idx),) + row shape`` and
    copied first (it may read ``array``), then written row by row. With ``combine`` (a ufunc,
    :func:`ufunc_at`) each row becomes ``combine(row, value row)`` in index order, so repeated
    indices accumulate; the value keeps its dtype (NumPy's loop promotes, then casts)."""
    _check_rank(array, rest)
    count = idx.shape[0]
    row_shape = array[(0, *rest)].shape
    apart = combine is not None and not _reads(value, array)  # NumPy's copy is not needed
    scalar = apart and not isinstance(value, SymArray)
    rows = value  # a scalar is every row, its weak promotion kept
    if not scalar:
        if combine is None:
            handlers.check_scalar_store(value, array.dtype, basic=False)
        value = value if isinstance(value, SymArray) else wrap(operand(value).node)
        rows = np.broadcast_to(value, (count, *row_shape))
        rows = rows if apart else np.copy(rows if combine else rows.astype(array.dtype, "unsafe"))
    size = array.shape[0]  # NumPy checks every index before it writes any row
    _check_indices(idx, size)

    indexed = _indexed_pick(combine, array, value)

    def put(k: Any) -> tuple:
        target, row = (idx[k], *rest), rows if scalar else rows[k]
        if indexed is not None:
            now = operand(array[target]).node
            row = wrap(
                current().node(indexed, (now, operand(row).node), now.dtype, (), ArithKind.INDEXED)
            )
        elif combine is not None:  # NumPy's loop casts its result (205.0 -> int8 -51)
            row = combine(array[target], row).astype(array.dtype, casting="unsafe")
        array[target] = row
        return ()

    handlers.ac_for(put, (0, count, 1), ())


def _indexed_pick(combine: Any, array: Any, value: Any) -> Op | None:
    """MAXIMUM/MINIMUM where ``np.maximum.at`` runs NumPy's indexed loop, which warns of a NaN
    it compares: a 1-D array and a value of its dtype (a Python float is float64); a cast or
    2-D array takes NumPy's quiet buffered loop."""
    op = {np.maximum: Op.MAXIMUM, np.minimum: Op.MINIMUM}.get(combine)
    fast = op is not None and array.ndim == 1 and operand(value).node.dtype == array.dtype
    return op if fast and array.dtype.kind == "f" else None


def _reads(value: Any, array: Any) -> bool:
    """Whether ``value`` is computed from ``array``'s memory (its root, before or after a
    store), so that the loop's writes would change what it reads: NumPy reads a copy."""
    root = array.node
    while is_view(root.op) or root.op is Op.STORE:
        root = root.inputs[0]
    seen, todo = set(), [operand(value).node]
    while todo:
        node = todo.pop()
        if node is root:
            return True
        if node.id not in seen:
            seen.add(node.id)
            todo.extend(node.inputs)
    return False


def ufunc_at(ufunc: np.ufunc, array: Any, indices: Any, value: Any = None) -> None:
    """``np.add.at(array, idx, value)`` (any binary ufunc's ``at``) with a 1-D integer index
    array: NumPy's unbuffered loop, ``array[idx[k]] = ufunc(array[idx[k]], value[k])`` (a
    :func:`scatter` that combines). Values that do not match the picked rows' shape (NumPy's
    own broadcasting message), complex into real (NumPy's ComplexWarning) and other keys run in
    NumPy."""
    number = isinstance(value, (SymArray, SymScalar, SymInt, int, float, complex, np.generic))
    picked = index_array(indices) if isinstance(array, SymArray) and number else None
    if picked is None or ufunc.nin != 2:
        raise TraceBreak(TraceReason.NOT_SUPPORTED, f"np.{ufunc.__name__}.at of these arguments")
    idx, rest = picked
    if isinstance(indices, SymArray) and indices.dtype == np.int64 and not _reads(indices, array):
        idx = indices  # no copy of what the loop cannot write
    _check_rank(array, rest)
    rows = (idx.node.shape[0], *array[(0, *rest)].node.shape)  # symbols: compared, not guarded
    node = operand(value).node
    if node.shape != rows[len(rows) - len(node.shape) :] or (
        node.dtype.kind == "c" and array.dtype.kind != "c"
    ):
        raise TraceBreak(TraceReason.NOT_SUPPORTED, f"np.{ufunc.__name__}.at of these values")
    scatter(array, idx, rest, value, ufunc)
