"""Typed lists: a list of numbers of one exact type, read into an array and written back.

A region argument that is a list of Python floats (ints that fit int64, complex numbers,
bools), or a list of equal-length lists or tuples of them, is one *typed list*: its guard key
says the item type and the sizes (``("pylist", "d", (s1,))``), not one entry per item, and the
compiled code reads it as a C-ordered array made on entry (Numba's reflected lists). Where the
region stored into it, the array's values go back into the same list objects on the way out,
each item of the exact Python type it had (``int`` stays ``int``).

A list is *not* typed (it keeps the item-by-item key of short sequences, or the region runs
as written) when it is empty, mixes types (``[1, 2.5]``), holds a subclass (``np.float64``
is not a ``float``), an int outside int64, rows of other lengths or kinds, or the same list
row twice (``[[0] * n] * m``: a write through one row is seen through the others).

The passes over the items are C (``fastcall_lists.c``, in the call-path extension) when the
extension is loaded; the Python versions below give the same answers, more slowly.

Part of the runtime: must not import the compiler.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import fastcall

#: the first item of a guard key of a typed list
TAG = "pylist"
#: item code -> (Python type, NumPy dtype)
ITEMS: dict[str, tuple[type, np.dtype]] = {
    "d": (float, np.dtype(np.float64)),
    "q": (int, np.dtype(np.int64)),
    "D": (complex, np.dtype(np.complex128)),
    "?": (bool, np.dtype(np.bool_)),
}
_CODES = {kind: code for code, (kind, _) in ITEMS.items()}
_I64 = (-(2**63), 2**63 - 1)
#: An untyped list argument longer than this is keyed by "long list" alone (no compiled code
#: takes it): a key, and a trace, one entry per item would grow with the list.
LONG = 64
ALIASED, LONG_LIST = "aliased list", "long list"


def classify(args: tuple) -> dict[int, tuple | str]:
    """The list arguments that are typed lists (position -> :func:`kind`), or that no compiled
    code takes (position -> ``ALIASED``: one list object is two of them, or a row of one;
    ``LONG_LIST``: long and untyped). Other list arguments are keyed item by item."""
    found: dict[int, tuple | str] = {}
    for i, value in enumerate(args):
        if type(value) is list:
            typed = kind(value)
            if typed is not None:
                found[i] = typed
            elif len(value) > LONG:
                found[i] = LONG_LIST
    typed_at = [i for i, k in found.items() if type(k) is tuple]
    if len(typed_at) > 1 and overlap(tuple(args[i] for i in typed_at)):
        found.update((i, ALIASED) for i in typed_at)
    return found


def kind(value: list) -> tuple | None:
    """``(code, n)`` or ``(code, n, m, row type)`` of a typed list, else None."""
    module = fastcall.loaded()
    if module is not None:
        return module.list_kind(value)
    return _kind(value)


def kind_function() -> Any:
    """:func:`kind` itself, the C function when the extension is loaded (for generated guard
    functions: one call less per check)."""
    module = fastcall.loaded()
    return kind if module is None else module.list_kind


def unbox(value: list, found: tuple) -> np.ndarray:
    """The items of ``value`` (whose :func:`kind` is ``found``) as a new array."""
    module = fastcall.loaded()
    if module is not None:
        return module.list_unbox(value, *found[:3])
    return np.array(value, dtype=ITEMS[found[0]][1])


def box(value: list, array: np.ndarray) -> None:
    """Write ``array`` back into ``value`` (and its rows) as Python numbers."""
    module = fastcall.loaded()
    if module is not None:
        module.list_box(value, array)
        return
    if array.ndim == 1:
        value[:] = array.tolist()
        return
    for row, items in zip(value, array.tolist()):
        row[:] = items


def overlap(values: tuple) -> bool:
    """Whether one list object is two of ``values`` or their list rows."""
    module = fastcall.loaded()
    if module is not None:
        return module.list_overlap(values)
    ids = [id(v) for v in values]
    ids += [id(r) for v in values for r in v if type(r) is list]
    return len(set(ids)) != len(ids)


def _kind(value: list) -> tuple | None:
    if type(value) is not list or not value:
        return None
    first = value[0]
    if type(first) in (list, tuple):
        return _rows_kind(value, type(first), len(first))
    code = _items_code(value)
    return None if code is None else (code, len(value))


def _rows_kind(value: list, row_type: type, m: int) -> tuple | None:
    if m == 0 or any(type(r) is not row_type or len(r) != m for r in value):
        return None
    codes = {_items_code(r) for r in value}
    if len(codes) != 1 or None in codes:
        return None
    if row_type is list and len({id(r) for r in value}) != len(value):
        return None
    return (codes.pop(), len(value), m, row_type)


def _items_code(items: list | tuple) -> str | None:
    types = set(map(type, items))
    if len(types) != 1:
        return None
    code = _CODES.get(types.pop())
    if code == "q" and (min(items) < _I64[0] or max(items) > _I64[1]):
        return None
    return code


def key(found: tuple, dim_class: Any) -> tuple:
    """The guard key of a typed list of kind ``found``; ``dim_class`` gives a size's class
    (shared with the arrays of the same call: equal sizes, equal classes)."""
    dims = tuple(dim_class(n) for n in found[1:3])
    rows = found[3].__name__ if len(found) > 3 else None
    return (TAG, found[0], dims, rows)


def is_key(k: Any) -> bool:
    return type(k) is tuple and len(k) == 4 and k[0] == TAG
