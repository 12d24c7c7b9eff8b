"""Guards: pure functions from a region's arguments to a small hashable key.

A compiled region is reused while the key of a call equals the key it was traced with. The
key holds what changes the generated code: types, dtypes, ndim, which sizes are 0, 1 or equal to
each other ("duck sizing"), contiguity, and the values of arguments that are not array data
(bools, None, strings). Python floats and complex numbers are passed by value and never guarded
by value; Python
ints only by magnitude class, because NEP 50 makes ``int8_array + 300`` an error. A recompile
reason is the difference of two keys, printed in words by :func:`key_changes`.

This module is part of the runtime: it must not import the compiler.
"""

from __future__ import annotations

import itertools
import types
from typing import Any

import numpy as np

from . import pylists
from .memory_order import layout_class

#: Sentinel key entry for an argument no compiled code can take (subclass, object dtype, ...).
UNSUPPORTED = "unsupported"

_INT_CLASSES = (7, 8, 15, 16, 31, 32, 63, 64)
_IDENTITY_TYPES = (
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    type,
    np.ufunc,
    np.dtype,
)


def int_class(value: int) -> tuple[bool, int]:
    """Which NumPy integer types ``value`` fits: sign and a bit-length class (of ``~value``
    for a negative one, so that -128 is with -1 and -2**63 with the other int64 values)."""
    bits = value.bit_length() if value >= 0 else (~value).bit_length()
    for k, limit in enumerate(_INT_CLASSES):
        if bits <= limit:
            return value < 0, k
    return value < 0, len(_INT_CLASSES)


def int_class_bounds(value: int) -> tuple[int, int]:
    """The smallest and largest int of ``value``'s class: every int the guard of an argument
    traced with ``value`` lets through (the compiler checks them against a dtype's range)."""
    negative, k = int_class(value)
    if k == len(_INT_CLASSES):
        low, high = 2**64, 2**200
    else:
        low, high = (2 ** _INT_CLASSES[k - 1] if k else 0), 2 ** _INT_CLASSES[k] - 1
    return (~high, ~low) if negative else (low, high)


def _dim_class(size: int, sizes: dict[int, int]) -> int:
    if size < 2:
        return size
    return sizes.setdefault(size, -len(sizes) - 1)


def _array_key(value: np.ndarray, sizes: dict[int, int]) -> tuple:
    dims = tuple(_dim_class(d, sizes) for d in value.shape)
    return (np.ndarray, value.dtype, dims, layout_class(value))


def value_key(value: Any, sizes: dict[int, int]) -> Any:
    """The guard key of one argument; ``sizes`` maps each size seen so far to its class."""
    kind = type(value)
    if kind is np.ndarray:
        return _array_key(value, sizes)
    if kind is float or kind is complex:
        return kind
    if kind is int:
        return (int, int_class(value))
    if kind is bool or value is None or kind is str:
        return (kind, value)
    if isinstance(value, np.generic):
        return (kind,)
    if kind is tuple or kind is list:
        return (kind, tuple(value_key(v, sizes) for v in value))
    if isinstance(value, _IDENTITY_TYPES):
        return ("id", id(value))
    return (UNSUPPORTED, kind)


def call_key(args: tuple, sizes: dict[int, int] | None = None) -> tuple:
    """The guard key of a whole region call; identical arrays passed twice are noted.
    ``sizes`` (filled here) lets later keys, of the values a region reads, share its classes.
    A list argument of numbers of one type is a typed list (runtime/pylists.py): its key
    holds its item type and sizes, not one key per item."""
    sizes = {} if sizes is None else sizes
    lists = pylists.classify(args)
    keys = tuple(
        value_key(a, sizes) if i not in lists else _list_key(lists[i], sizes)
        for i, a in enumerate(args)
    )
    arrays = _array_ids([a for i, a in enumerate(args) if i not in lists], [])
    aliased = len(set(arrays)) != len(arrays)
    return keys + ((aliased, tuple(arrays.index(i) for i in arrays)),) if aliased else keys


def _list_key(found: tuple | str, sizes: dict[int, int]) -> tuple:
    """A typed list's key; a list no compiled code takes (``found`` says why) is keyed by that
    alone, however long it is."""
    if type(found) is str:
        return (UNSUPPORTED, found)
    return pylists.key(found, lambda n: _dim_class(n, sizes))


def _array_ids(values: tuple | list, ids: list[int]) -> list[int]:
    """The ids of the arrays in ``values``, tuples and lists included, in the order the
    tracer numbers leaves: the same array twice anywhere is one leaf, so the key must say so."""
    for value in values:
        kind = type(value)
        if kind is np.ndarray:
            ids.append(id(value))
        elif kind is tuple or kind is list:
            _array_ids(value, ids)
    return ids


class KeyChecks:
    """Python conditions over parameters ``_a0, _a1, ...`` that hold exactly when
    ``call_key(args) == key``: the source of a region's specialised guard function.

    ``conds`` are joined with ``and`` in order (walrus bindings come before their uses);
    ``consts`` are the objects they name. ``shape(i)`` is the name bound to argument ``i``'s
    shape tuple (for later size checks). The checks read no more than the key does.
    """

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix  # keeps constant names unique when several checks share a function
        self.conds: list[str] = []
        self.consts: dict[str, Any] = {}
        self.sizes: list[str] = []  # size class -1, -2, ... -> the local bound to it
        self.arrays: list[str] = []  # the values checked as arrays, in order
        self.lists: list[str] = []  # the values checked as typed lists, in order

    def const(self, value: Any) -> str:
        """The name the checks use for ``value`` (one name per object)."""
        for name, known in self.consts.items():
            if known is value:
                return name
        name = f"_{self.prefix}c{len(self.consts)}"
        self.consts[name] = value
        return name

    @staticmethod
    def shape(var: str) -> str:
        """The local bound to the shape of the value named ``var`` (``_a0``, a read)."""
        return f"_sh{var}"

    @staticmethod
    def list_kind(var: str) -> str:
        """The local bound to the :func:`pylists.kind` of the typed list named ``var`` (once
        per call, before every check: see :func:`list_kinds`)."""
        return f"_k{var}"

    def leaf(self, var: str) -> str:
        """The expression of the graph leaf of the value named ``var``: a typed list's array
        (read from the list on every call), else the value itself."""
        return f"_list_unbox({var}, {self.list_kind(var)})" if var in self.lists else var


def key_checks(key: tuple, nargs: int, prefix: str = "") -> KeyChecks | None:
    """The checks for ``key`` over ``nargs`` arguments; None when some part has no cheap
    check (aliased arrays, tuples, identity-keyed objects): such calls take the generic path."""
    if len(key) != nargs:  # aliasing noted at the end of the key
        return None
    checks = KeyChecks(prefix)
    for i, k in enumerate(key):
        if not value_checks(checks, f"_a{i}", k):
            return None
    checks.conds += [f"{a} is not {b}" for a, b in itertools.combinations(checks.arrays, 2)]
    if len(checks.lists) > 1:
        checks.conds.append(f"not _list_overlap(({', '.join(checks.lists)},))")
    return checks


def value_checks(checks: KeyChecks, a: str, k: Any) -> bool:
    """Add the checks that the value named ``a`` has key ``k`` (see :func:`value_key`); False
    when ``k`` has no cheap check (tuples, objects keyed by identity)."""
    if _is_array_key(k):
        _array_checks(checks, a, k)
        checks.arrays.append(a)
    elif pylists.is_key(k):
        _list_checks(checks, a, k)
        checks.lists.append(a)
    elif k is float or k is complex:
        checks.conds.append(f"type({a}) is {k.__name__}")
    elif type(k) is not tuple or not k:
        return False
    elif k[0] is int:
        checks.conds.append(f"type({a}) is int and _int_class({a}) == {checks.const(k[1])}")
    elif k[0] is bool or k[0] is type(None):
        checks.conds.append(f"{a} is {k[1]!r}")
    elif k[0] is str:
        checks.conds.append(f"type({a}) is str and {a} == {k[1]!r}")
    elif len(k) == 1 and isinstance(k[0], type) and issubclass(k[0], np.generic):
        checks.conds.append(f"type({a}) is {checks.const(k[0])}")
    elif len(k) == 2 and k[0] == UNSUPPORTED and isinstance(k[1], type):
        # an object the region reads through: what it reads is checked by its reads
        checks.conds.append(f"type({a}) is {checks.const(k[1])}")
    else:
        return False
    return True


def _array_checks(checks: KeyChecks, a: str, k: tuple) -> None:
    _, dtype, dims, layout = k
    sh, conds = checks.shape(a), checks.conds
    conds.append(
        f"type({a}) is _ndarray and {a}.dtype is {checks.const(dtype)} and {a}.ndim == {len(dims)}"
    )
    sizes = [f"(({sh} := {a}.shape)[0])"] + [f"{sh}[{i}]" for i in range(1, len(dims))]
    _size_checks(checks, sizes, dims)
    flags = f"_fl{a}"
    if layout == "C":
        conds.append(f"{a}.flags.c_contiguous")
    elif layout == "F":
        conds.append(f"not ({flags} := {a}.flags).c_contiguous and {flags}.f_contiguous")
    else:  # strided: the axis order of what NumPy makes from it too (runtime/memory_order.py)
        conds.append(f"{checks.const(layout_class)}({a}) == {layout!r}")


def _list_checks(checks: KeyChecks, a: str, k: tuple) -> None:
    """``a`` is a typed list of ``k``'s item type, rows and size classes."""
    _, code, dims, rows = k
    found = checks.list_kind(a)
    checks.conds.append(
        f"{found} is not None and {found}[0] == {code!r} and len({found}) == {4 if rows else 2}"
    )
    if rows is not None:
        checks.conds.append(f"{found}[3] is {rows}")
    checks.conds.append(f"({checks.shape(a)} := {found}[1:{1 + len(dims)}])")  # shape guards
    _size_checks(checks, [f"{found}[{axis + 1}]" for axis in range(len(dims))], dims)


def list_kinds(keys: list[tuple], args: list[str]) -> list[str]:
    """Lines binding the kind of each argument that some of ``keys`` says is a typed list
    (None for anything but a list), for the checks of every key to share: one pass over the
    items per call, however many entries and keys there are."""
    at = sorted({i for key in keys for i, k in enumerate(key[: len(args)]) if pylists.is_key(k)})
    return [
        f"{KeyChecks.list_kind(args[i])} = _list_kind({args[i]}) if type({args[i]}) is list "
        "else None"
        for i in at
    ]


def _size_checks(checks: KeyChecks, sizes: list[str], dims: tuple) -> None:
    """Each size (a Python expression) is in its class: 0, 1, or one of the classes >= 2, all
    unequal (the duck sizing of :func:`value_key`)."""
    conds = checks.conds
    for d, size in zip(dims, sizes):
        if d in (0, 1):
            conds.append(f"{size} == {d}")
        elif -d <= len(checks.sizes):
            conds.append(f"{size} == {checks.sizes[-d - 1]}")
        else:  # a new size class: >= 2 and unlike every earlier class
            var = f"_{checks.prefix}s{-d}"
            conds.append(f"({var} := {size}) > 1")
            conds += [f"{var} != {other}" for other in checks.sizes]
            checks.sizes.append(var)


_LAYOUTS = {
    "C": "C-contiguous",
    "F": "Fortran-ordered",
    "S": "strided",
    "P": "strided by parts of items",
}


def _layout_words(layout: str) -> str:
    """``S12``: strided, its strides ranked (1, 2) from the smallest (0: broadcast)."""
    if layout[0] == "S" and len(layout) > 1:
        return f"strided, strides ranked {tuple(map(int, layout[1:]))}"
    return _LAYOUTS[layout]


def _is_array_key(k: Any) -> bool:
    return isinstance(k, tuple) and len(k) == 4 and k[0] is np.ndarray


def _dims(dims: tuple) -> str:
    """Size classes as a shape: 0 and 1 as they are, other sizes ``sN`` (equal names, equal
    sizes)."""
    shown = ["0" if d == 0 else "1" if d == 1 else f"s{-d}" for d in dims]
    return f"({shown[0]},)" if len(shown) == 1 else f"({', '.join(shown)})"


def _describe(value_k: Any) -> str:
    if pylists.is_key(value_k):
        _, code, dims, rows = value_k
        rows = f" of {rows}s" if rows else ""
        return f"list{rows} of {pylists.ITEMS[code][0].__name__}, {_dims(dims)}"
    if _is_array_key(value_k):
        _, dtype, dims, layout = value_k
        return f"ndarray[{dtype}, {_dims(dims)}, {_layout_words(layout)}]"
    if isinstance(value_k, tuple) and value_k and value_k[0] is int:
        negative, k = value_k[1]
        bound = _INT_CLASSES[k] if k < len(_INT_CLASSES) else "more"
        return f"int ({'negative, ' if negative else ''}up to {bound} bits)"
    if isinstance(value_k, tuple) and len(value_k) == 2 and value_k[0] in (bool, str, type(None)):
        return repr(value_k[1])
    if isinstance(value_k, tuple) and len(value_k) == 2 and value_k[0] in (tuple, list):
        return f"{value_k[0].__name__} of {len(value_k[1])}"
    if isinstance(value_k, tuple) and value_k and isinstance(value_k[0], type):
        return value_k[0].__name__
    if isinstance(value_k, type):
        return value_k.__name__
    if isinstance(value_k, tuple) and value_k and value_k[0] == "id":
        return "another object"
    return repr(value_k)


def _array_changes(old: tuple, new: tuple) -> list[str]:
    (_, dtype0, dims0, layout0), (_, dtype1, dims1, layout1) = old, new
    changes = []
    if dtype0 != dtype1:
        changes.append(f"dtype {dtype0} → {dtype1}")
    if len(dims0) != len(dims1):
        changes.append(f"ndim {len(dims0)} → {len(dims1)}")
    elif dims0 != dims1:
        changes.append(f"shape {_dims(dims0)} → {_dims(dims1)}")
    if layout0 != layout1:
        changes.append(f"layout {_layout_words(layout0)} → {_layout_words(layout1)}")
    return changes


def describe_changes(old: Any, new: Any) -> list[str]:
    """How one value's guard key changed, one item per guard, in words: ``dtype float64 →
    float32``, ``False → True``, ``shape (s1, 1) → (s1, s2)``, ``float → ndarray[...]``."""
    if _is_array_key(old) and _is_array_key(new):
        return _array_changes(old, new)
    same_sequence = (
        isinstance(old, tuple)
        and isinstance(new, tuple)
        and len(old) == len(new) == 2
        and old[0] is new[0]
        and old[0] in (tuple, list)
        and len(old[1]) == len(new[1])
    )
    if same_sequence:
        return [
            f"[{i}] {change}"
            for i, (a, b) in enumerate(zip(old[1], new[1]))
            if a != b
            for change in describe_changes(a, b)
        ]
    return [f"{_describe(old)} → {_describe(new)}"]


def key_changes(
    names: tuple[str, ...], old: tuple, new: tuple, arrays: tuple[str, ...] = ()
) -> list[str]:
    """Why a call with key ``new`` misses an entry traced for ``old``, one item per failing
    guard: each argument whose key differs, by name, and how (``x: dtype float64 →
    float32``); a change in which arguments are one array (the item :func:`call_key` adds)
    last, naming the arrays by ``arrays`` (the names of the arrays among the arguments, in
    order, where known)."""
    n = len(names)
    changes = [
        f"{names[i]}: {change}"
        for i, (a, b) in enumerate(zip(old[:n], new[:n]))
        if a != b
        for change in describe_changes(a, b)
    ]
    if old[n:] != new[n:]:
        changes.append(f"aliasing: {_sharing(old[n:], arrays)} → {_sharing(new[n:], arrays)}")
    return changes


def _sharing(extra: tuple, arrays: tuple[str, ...]) -> str:
    """The aliasing item of a key in words: ``(True, (0, 1, 0))`` is ``z is x`` when the
    arrays are ``x, y, z``."""
    if not extra:
        return "distinct arrays"

    def name(i: int) -> str:
        return arrays[i] if i < len(arrays) else f"array {i}"

    order = extra[0][1]
    return ", ".join(f"{name(i)} is {name(first)}" for i, first in enumerate(order) if first != i)
