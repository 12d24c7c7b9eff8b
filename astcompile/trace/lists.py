"""Typed lists under tracing: a list argument of numbers of one type, read as an array.

A region argument that is a typed list (runtime/pylists.py: floats, ints within int64,
complex numbers or bools, or equal-length rows of them) becomes one INPUT array, the list's
items copied on entry. :class:`SymList` gives it a list's behaviour: ``xs[i]`` is a Python
number computed at run time (a weak scalar, as a float read from a list is), ``xs[i] = v``
stores ``v`` only when it has the list's item type (else a list would end up holding another
type: the region runs as written), ``A[i]`` of a list of rows is the row (``A[i][j] = v``
writes the row), ``len(xs)`` a size, and ``for x in xs`` a compiled loop. A list the region
stores into is written back when the region returns or raises (jit/entries.py), so Python
sees what it would have seen; a store never reaches the list during the run, which is why a
check that re-runs the region's statements may follow one (:func:`is_private_store`).

Anything else a list can do (``append``, slices, ``+``, ``sum(xs)``, ``in``) is a trace
break: the region runs as written.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from astcompile import config
from astcompile.ir.checks import RUN_PLAIN, SEQUENCE_ERRORS
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.ir.results import OutKind, OutSpec
from astcompile.runtime import fastcall, pylists
from astcompile.trace import control as C
from astcompile.trace import handlers
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.numpy_api import array_function, array_ufunc
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, is_union, wrap

_VIEW_OPS = frozenset({Op.INDEX})


class SymList:
    """A typed list (or one row of a list of rows) under tracing; ``array`` holds its items."""

    def __init__(self, array: SymArray, item: type, name: str, rows: type | None = None) -> None:
        self.array = array
        self.item = item
        self.name = name
        self.rows = rows  # list or tuple: the type of each row of a list of rows
        self.position: int | None = None  # the argument it is, for a whole list
        self.written = False
        self.owner = self  # the whole list a row belongs to (its writes are the list's)
        self.tuple_row = False  # a row that is a tuple: Python refuses writes into it
        self.items: Any = None  # a whole list argument's items, as traced
        self.fill: Any = None  # the one number a list made as ``[x] * n`` holds, until stored
        self.growth: Any = None  # a list a loop appends to (trace/growing_lists.py)

    # --- what a list can do in compiled code ---
    def length(self) -> Any:
        """``len(xs)``: a size that stays symbolic (a new length does not recompile)."""
        if self.growth is not None:
            return self.growth.size
        return SymInt.of(self.array.node.shape[0])

    def __len__(self) -> int:
        if self.growth is not None:
            return operator.index(self.growth.size)
        return len(self.array)

    def _items(self) -> SymArray:
        """The array of the items: a growing list's first ``len`` items of its buffer."""
        return self.array if self.growth is None else self.array[: self.growth.size]

    def _at(self, key: Any, store: bool = False) -> Any:
        """Where ``self[key]`` is in the array; a growing list checks the index against its
        length as Python does (its buffer is longer)."""
        index = _index(key, self.name)
        if self.growth is None:
            return index

        return handlers.position(index, self.growth.size, store)

    def _message(self, store: bool) -> str:
        """Python's IndexError for this list (or a tuple row) indexed out of range."""
        return SEQUENCE_ERRORS[2] if self.tuple_row else SEQUENCE_ERRORS[store]

    def append(self, value: Any) -> None:
        handlers.append(self, value)

    def extend(self, values: Any) -> None:
        """``xs.extend([a, b])``: the appends of the list or tuple the trace holds, in order
        (the display was built whole before the call, as in Python); of anything else, the
        loop runs as written."""
        if type(values) is not list and type(values) is not tuple:
            raise TraceBreak(
                TraceReason.SIDE_EFFECT,
                f"{self.name}.extend() of a {type(values).__name__}: runs as written",
            )
        for value in values:
            handlers.append(self, value)

    def __getitem__(self, key: Any) -> Any:
        value = handlers.getitem(self.array, self._at(key), self._message(False))
        if self.rows is not None:
            row = SymList(value, self.item, f"{self.name}[...]")
            row.owner, row.tuple_row = self.owner, self.rows is tuple
            return row
        return _python_number(value.node, self.item, self.name)

    def __setitem__(self, key: Any, value: Any) -> None:
        if self.tuple_row:
            raise TypeError("'tuple' object does not support item assignment")
        if self.rows is not None:
            raise TraceBreak(TraceReason.LIST_WRITE, f"a row of {self.name} is replaced")
        kind = python_type(value)
        if kind is not self.item:  # compiled, the list would hold another type
            got = "NumPy value" if kind is SymArray else kind.__name__
            raise TraceBreak(
                TraceReason.SIDE_EFFECT,
                f"the region changes a list it was given: {self.name} holds "
                f"{self.item.__name__}s and would get a {got}",
            )
        handlers.setitem(self.array, self._at(key, store=True), value, self._message(True))
        self.owner.written = True
        self.fill = None

    def __iter__(self) -> Any:
        """Unpacking a short row (``x, y = point``): its items, its length guarded."""
        return iter([self[k] for k in range(len(self))])

    def __bool__(self) -> bool:
        return len(self) > 0

    def as_array(self) -> SymArray:
        """What NumPy makes of the list (``np.asarray(xs)``): a new array of its items. Of an
        empty list a float64 one: a grown list of other items must not be empty at run time
        (else its statements run)."""
        node = self._items().node
        if self.growth is not None and node.dtype != np.float64:
            C.check(self.growth.size > 0, RUN_PLAIN, "NumPy makes an empty list float64")
        return wrap(current().node(Op.COPY, (node,), node.dtype, node.shape))

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return array_function(func, numpy_arrays(args), numpy_arrays(kwargs))

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return array_ufunc(ufunc, method, numpy_arrays(inputs), kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if self.owner.position is None:  # made in the region (trace/local_lists.py)
            raise TraceBreak(
                TraceReason.SIDE_EFFECT,
                f"{name}() on a list made outside it: only a list's items compile, "
                "the loop runs as written",
            )
        raise TraceBreak(TraceReason.OBJECT_METHOD, f"{self.name}.{name}() on a list")

    def _unsupported(self, *_: Any) -> Any:
        raise TraceBreak(TraceReason.NOT_SUPPORTED, f"this operation on the list {self.name}")

    __add__ = __radd__ = __mul__ = __rmul__ = __contains__ = _unsupported
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __iadd__ = __imul__ = _unsupported
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SymList({self.item.__name__}, {self.name})"


def argument(value: list, found: tuple, name: str, position: int, make_leaf: Any) -> SymList:
    """The SymList of typed-list argument ``value`` (``found``: its pylists.kind); its array
    is an INPUT leaf made by ``make_leaf(array, name)``, kept private (its stores are undone by
    not writing them back)."""
    if fastcall.extension(config.cache_dir, build_it=False) is None:
        # The C passes over the items are an optional speed-up built once a machine (about
        # half a second of gcc): never waited for in a call; the Python passes give the same
        # items, and pylists' functions switch to the C ones once the build is loaded.
        fastcall.build_in_background(config.cache_dir)
    items = pylists.unbox(value, found)
    array = make_leaf(items, name)
    current().private.add(array.node)
    symbolic = SymList(
        array, pylists.ITEMS[found[0]][0], name, found[3] if len(found) > 3 else None
    )
    symbolic.position = position
    symbolic.items = items  # alive while traced: leaves are told apart by their arrays' ids
    return symbolic


def refuse(found: str, name: str) -> None:
    """A list argument no compiled code takes (runtime/pylists.classify says why)."""
    detail = (
        "the same list is passed twice, or shares a row with another"
        if found == pylists.ALIASED
        else f"a list of more than {pylists.LONG} items of mixed or non-numeric types"
    )
    raise TraceBreak(TraceReason.UNSUPPORTED_ARGUMENT, f"{name}: {detail}")


def output(value: SymList) -> OutSpec:
    """A list leaving the region: an argument list is itself (written back first)."""
    if value.owner is not value or value.position is None:
        raise TraceBreak(
            TraceReason.UNSUPPORTED_OUTPUT,
            f"a row of the list {value.owner.name} leaves the region",
        )
    return OutSpec(OutKind.ARG, value.position)


def written(lists: list[SymList]) -> tuple[tuple[int, int], ...]:
    """(leaf index, argument position) of each list stored into."""
    return tuple(
        (s.array.node.attr.index, s.position) for s in lists if s.written and s.position is not None
    )


def is_private_store(store: Node, private: set[Node]) -> bool:
    """Whether ``store`` writes into a typed list's array, which reaches the list only when the
    region completes: running the region's statements again then does nothing twice."""
    target = store.inputs[0]
    while target.op in _VIEW_OPS:
        target = target.inputs[0]
    return target in private


def _index(key: Any, name: str) -> Any:
    if isinstance(key, slice):
        raise TraceBreak(TraceReason.NOT_SUPPORTED, f"a slice of the list {name} is a new list")
    if type(key) is int or isinstance(key, SymInt):
        return key
    if isinstance(key, SymScalar) and type(key.hint) is int:
        return key
    if type(key) is bool or (isinstance(key, SymScalar) and type(key.hint) is bool):
        raise TraceBreak(TraceReason.NOT_SUPPORTED, f"a bool as an index of the list {name}")
    raise TypeError(f"list indices must be integers or slices, not {type(key).__name__}")


_DTYPES = dict(pylists.ITEMS.values())
#: NumPy scalar types a list the region grows may hold (``[x[i:j].mean() for ...]`` holds
#: np.float64s): they leave the region as those scalars, not as Python numbers.
NUMPY_ITEMS = frozenset({np.float64, np.float32, np.int64, np.int32, np.bool_, np.complex128})


def item_dtype(item: type) -> np.dtype:
    """The dtype of a typed list's buffer of ``item`` (a Python number or NumPy scalar type)."""
    return _DTYPES[item] if item in _DTYPES else np.dtype(item)


def _python_number(node: Node, item: type, name: str) -> SymScalar:
    """An item of a typed list: a Python number (or NumPy scalar) known only at run time."""
    node = B.cast_node(node, item_dtype(item))
    return SymScalar(node, item(1), f"an item of {name}", dynamic=True)


def python_type(value: Any) -> type:
    """The type of a list item the trace stores; a union (a Python number or its NumPy twin,
    as the running code decides: ``s = 0.0`` then a loop that may add ``a[k]``) has none, and
    the list would hold the NumPy scalar where Python's holds the number."""
    if is_union(value):
        raise TraceBreak(
            TraceReason.VALUE_DEPENDENT_TYPE,
            "a list item is a Python number or a NumPy scalar as the running code decides: "
            "runs as written",
        )
    if isinstance(value, SymScalar):
        return type(value.hint)
    if isinstance(value, SymInt):
        return int
    if isinstance(value, SymArray) and value.is_scalar and value.node.ndim == 0:
        return value.node.dtype.type  # a NumPy scalar: x[i:j].mean()
    return type(value)


def numpy_arrays(values: Any) -> Any:
    """``values`` with each SymList as the array NumPy would make of it."""
    if isinstance(values, SymList):
        return values.as_array()
    if type(values) in (tuple, list):
        return type(values)(numpy_arrays(v) for v in values)
    if type(values) is dict:
        return {k: numpy_arrays(v) for k, v in values.items()}
    return values
