"""Lists a region makes itself, as typed buffers: ``[0.0] * n``, ``[[0] * m for _ in range(n)]``.

A list of one kind of Python number made in the region (``out = [0.0] * n``) is a
:class:`~astcompile.trace.lists.SymList` over a fresh array, so a loop may store into it and
read it at run-time indices (``out[i] = v``, ``c[i][j] += s``) as a native loop; where it
leaves the region it becomes a new Python list of the exact Python types (``Box.LIST``:
``float`` stays ``float``, ``int`` stays ``int``). A store of another type, a length known
only at run time, rows shared or held twice: the list stays a Python list, and a loop that
indexes it by its loop variable runs as written.

Two ways in:

- ``[x] * n`` with a traced length ``n`` (a size, or an int argument guarded by value):
  :func:`repeat`, from the multiplication itself.
- a Python list the region made with a concrete length (``[0.0] * 4``, a comprehension of
  rows ``[[0.0] * m for _ in range(n)]``), read by a loop body through its closure:
  :func:`adopt` puts the typed list into the closure cell before the body is traced, when
  nothing else holds the list (its reference count says so), so no other name still sees the
  Python list.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.runtime import pylists
from astcompile.trace import handlers
from astcompile.trace.lists import SymList, python_type
from astcompile.trace.numpy_fill import new_array
from astcompile.trace.numpy_join import stack
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar

DTYPES = dict(pylists.ITEMS.values())
_I64 = (-(2**63), 2**63 - 1)
#: Rows of a comprehension stacked store by store past this many (each a node): left alone.
_MAX_STACKED = 64
NAME = "a list made in the region"
#: References to an object held once (by a cell or a list), as :func:`adopt` and :func:`_rows`
#: count them: the holder, their own variable and getrefcount's argument.
_HELD_ONCE = 3


@handlers.register
def repeat(items: list, times: Any) -> SymList | Any:
    """``items * times`` for a traced ``times``: a typed list when ``items`` is one number
    (``[0.0] * n``), else NotImplemented (Python's own repeat, which specialises ``times``)."""
    item = item_type(items) if len(items) == 1 else None
    size = _length(times)
    if item is None or size is None:
        return NotImplemented
    value = items[0]

    made = SymList(new_array((size,), DTYPES[item], value), item, NAME)
    made.fill = value if not isinstance(value, (SymScalar, SymInt)) else None
    return made


def adopt(body: Callable, given: Callable[[Any], bool], flat: bool = True) -> None:
    """Put a typed list in place of each Python list ``body`` reads through its closure that
    the region made (``given`` says which objects it was handed instead), where one fits;
    lists of numbers only where ``flat`` (else trace/growing_lists.py takes them)."""
    for cell in body.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # a name not bound yet
            continue
        if type(value) is not list or given(value) or sys.getrefcount(value) > _HELD_ONCE:
            continue
        if not flat and not (value and type(value[0]) is SymList):
            continue
        typed = typed_list(value)
        if typed is not None:
            cell.cell_contents = typed


def typed_list(value: list) -> SymList | None:
    """The typed list that stands for the Python list ``value``, or None."""
    if value and all(type(row) is SymList for row in value):
        return _rows(value)
    item = item_type(value)
    if item is None:
        return None

    items = np.array(value, dtype=DTYPES[item])
    return SymList(new_array(items.shape, items.dtype, items), item, NAME)


def _rows(rows: list) -> SymList | None:
    """Rows a comprehension made (``[[0.0] * m for _ in range(n)]``): one 2-D typed list,
    when they are distinct lists of one type and length, each held by ``rows`` alone."""
    kind = (rows[0].item, rows[0].array.node.shape)
    for row in rows:  # held by rows, by its own ``owner``, by ``row`` and getrefcount
        if not _plain_row(row, kind) or sys.getrefcount(row) > _HELD_ONCE + 1:
            return None
    if len({id(r) for r in rows}) != len(rows):
        return None
    fills = {(type(r.fill), repr(r.fill)) for r in rows}  # -0.0 is not 0.0
    item, (length,) = kind

    shape = (len(rows), length)
    if len(fills) == 1 and rows[0].fill is not None:
        array = new_array(shape, DTYPES[item], rows[0].fill)
    elif len(rows) <= _MAX_STACKED:
        array = _stacked([r.array for r in rows])
    else:
        return None
    return SymList(array, item, NAME, rows=list)


def _plain_row(row: SymList, kind: tuple) -> bool:
    """A whole 1-D list the region made, of ``kind`` (item type, shape)."""
    return (
        row.owner is row
        and row.rows is None
        and row.position is None
        and (row.item, row.array.node.shape) == kind
    )


def _stacked(parts: list[SymArray]) -> SymArray:
    return stack(parts)


def item_type(items: list) -> type | None:
    """The one Python number type of ``items`` (traced or not), ints within int64."""
    kinds = {python_type(v) for v in items}
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if kind not in DTYPES:
        return None
    if kind is int and any(type(v) is int and not _I64[0] <= v <= _I64[1] for v in items):
        return None
    return kind


def _length(times: Any) -> Any:
    """A list length from ``times``: a size, or an int argument (guarded by value); None for
    a length that varies per iteration or may be negative (Python's ``[]``)."""
    if isinstance(times, SymInt):
        return times.dim if times.dim.hint >= 0 else None
    if isinstance(times, SymScalar) and type(times.hint) is int and not times.dynamic:
        value = int(times)  # guarded by value, as np.zeros(n) is
        return value if value >= 0 else None
    return None
