"""What may leave a trace as a plain Python value, and what a trace may do to what it was given.

A region's results are graph outputs (arrays, scalars) or Python values handed back as they are
on every call (``OutSpec(OutKind.CONST)``). Nothing traced may hide in such a value: once the trace
ends, the ``SymArray`` in ``seen = {x.sum()}`` or in ``d["k"] = x.sum()`` is a symbol, not a
number ("symbolic value used outside of a trace"). And a mutable value the trace made
(``seen = set()``) would be one object shared by every call, where Python makes a new one.

The trace runs the body once, so what it does to the lists, dicts, sets and objects it was given
(arguments, the globals and closure cells the body reads) happens once too: ``lst.append(v)``
would be missing from every compiled call. Such a change is undone and breaks the trace.

Each of these raises :class:`TraceBreak`: the region runs in Python, which is always right.
"""

from __future__ import annotations

import operator
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import chain
from typing import Any

import numpy as np

from astcompile import registry
from astcompile.ir.results import OutKind, OutSpec
from astcompile.trace.context import TraceBreak
from astcompile.trace.library_modules import untraced
from astcompile.trace.lists import SymList
from astcompile.trace.masks import MaskedValue
from astcompile.trace.nonzero import NonzeroAxis
from astcompile.trace.optionals import SymOptional
from astcompile.trace.reasons import TraceReason
from astcompile.trace.stand_ins import is_read_stand_in
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar

TRACED = (SymArray, SymScalar, SymInt, MaskedValue, NonzeroAxis, SymList, SymOptional)
_EMPTY = object()

#: Values no caller can change: returned as themselves, the same object on every call.
IMMUTABLE = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    np.generic,
    np.dtype,
    type,
    types.ModuleType,
    types.BuiltinFunctionType,
    types.FunctionType,
    np.ufunc,
    slice,
    range,
    type(Ellipsis),
)


#: Exact types whose values hold nothing and have no state a trace could change: a list of a
#: million floats given to a region is looked through at C speed, not value by value (that
#: took 0.2-0.6 s of a first call whose plain call takes 20 ms).
_LEAVES = frozenset((type(None), bool, int, float, complex, str, bytes))
_TUPLES = frozenset((tuple,))
_SEQUENCES = frozenset((tuple, list))


def _bare(items: list | tuple, around: frozenset[type] = _TUPLES) -> bool:
    """Whether ``items`` holds only leaves, or only containers of the types ``around`` that
    hold only leaves (``[(x, y), ...]``): checked at C speed, by the items' types alone."""
    kinds = set(map(type, items))
    if kinds <= _LEAVES:
        return True
    return kinds <= around and set(map(type, chain.from_iterable(items))) <= _LEAVES


def _parts(value: Any) -> Iterator[Any]:
    """The values ``value`` holds: container items, a function's closure and defaults, an
    object's attributes."""
    if isinstance(value, dict):
        yield from value.keys()
        yield from value.values()
    elif isinstance(value, (tuple, list, set, frozenset)):
        yield from value
    elif isinstance(value, types.FunctionType):
        yield from (cell.cell_contents for cell in value.__closure__ or () if _filled(cell))
        yield from value.__defaults__ or ()
    elif _plain_object(value):
        yield from vars(value).values()


def _filled(cell: types.CellType) -> bool:
    """Whether the cell holds a value (not a name still unbound)."""
    try:
        return cell.cell_contents is not _EMPTY
    except ValueError:  # an empty cell
        return False


def holds_traced(value: Any, seen: set[int] | None = None) -> bool:
    """Whether a traced value is ``value`` or is anywhere inside it."""
    if isinstance(value, TRACED):
        return True
    seen = set() if seen is None else seen
    if id(value) in seen:
        return False
    seen.add(id(value))
    if type(value) in _SEQUENCES and _bare(value, _SEQUENCES):
        return False
    return any(holds_traced(part, seen) for part in _parts(value))


def _immutable(value: Any) -> bool:
    if isinstance(value, (tuple, frozenset)):
        return all(_immutable(item) for item in value)
    return isinstance(value, IMMUTABLE)


def constant(value: Any, given: Callable[[Any], bool]) -> OutSpec:
    """``value`` as a result returned as itself, or a TraceBreak. ``given(value)`` says whether
    the region was handed that very object (an argument, a global): returning it again is what
    Python does."""
    value = untraced(value)  # ``make = np.array``: NumPy's function, not the tracer's view
    kind = type(value).__name__
    if holds_traced(value):
        raise TraceBreak(
            TraceReason.TRACED_VALUE_ESCAPES,
            f"a {kind} holding a value computed in the region leaves it",
        )
    if not _immutable(value) and not given(value):
        raise TraceBreak(
            TraceReason.MUTABLE_VALUE_ESCAPES,
            f"a {kind} made in the region leaves it (every call needs its own)",
        )
    return OutSpec(OutKind.CONST, value=value)


#: How to copy and restore the state of a mutable value the trace was given.
_STATE: dict[type, tuple[Callable[[Any], Any], Callable[[Any, Any], None]]] = {
    list: (list, lambda v, old: v.__setitem__(slice(None), old)),
    dict: (lambda v: list(v.items()), lambda v, old: (v.clear(), v.update(old))),
    set: (set, lambda v, old: (v.clear(), v.update(old))),
}


def _plain_object(value: Any) -> bool:
    """An object whose state is its attributes (not an array, a traced value, or one of our
    compiled functions, whose caches fill in while it is traced)."""
    skip = IMMUTABLE + (np.ndarray,) + TRACED
    return (
        hasattr(value, "__dict__")
        and not isinstance(value, skip)
        and not registry.is_compiled(value)
    )


def _state_kind(value: Any) -> tuple[Callable, Callable] | None:
    for kind, rules in _STATE.items():
        if isinstance(value, kind):
            return rules
    if not _plain_object(value):
        return None
    return (lambda v: list(vars(v).items()), lambda v, old: (vars(v).clear(), vars(v).update(old)))


def _identities(snapshot: Any) -> list[int] | set[int]:
    """A snapshot by the identity of what it holds (both halves of a dict's pairs): comparing
    by value would call a traced value's ``__eq__``."""
    ids = [id(part) for item in snapshot for part in (item if type(item) is tuple else (item,))]
    return set(ids) if isinstance(snapshot, set) else ids


def _changed(old: Any, new: Any) -> bool:
    """Whether two snapshots differ by identity; the same objects in the same order are the
    same snapshot, checked at C speed before looking inside pairs and tuples."""
    if len(old) == len(new) and all(map(operator.is_, old, new)):
        return False
    return _identities(old) != _identities(new)


def read_by(fn: Callable) -> list[Any]:
    """The globals and closure contents ``fn``'s code may read (nested code included)."""
    names: set[str] = set()
    stack = [fn.__code__]
    while stack:
        code = stack.pop()
        names.update(code.co_names)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    found = [fn.__globals__[n] for n in sorted(names) if n in fn.__globals__]
    return found + [c.cell_contents for c in fn.__closure__ or () if _filled(c)]


_GIVEN = (
    "the region changes a {kind} it was given, or stores a computed value in it; compiled, "
    "that would happen once"
)


class Watch:
    """What a trace is given (arguments as traced, the globals and cells it reads): which
    objects they are, and snapshots of the mutable ones, for :meth:`check` after the trace."""

    def __init__(self, values: list[Any]) -> None:
        self.given: set[int] = set()
        self.watched: list[tuple[Any, Any, Callable]] = []
        for value in values:
            self._add(value)
        # the arguments as traced (a list of traced arrays) hold traced values from the start
        self.traced_from_start = {id(v) for v, _, _ in self.watched if holds_traced(v)}

    def _add(self, value: Any) -> None:
        if id(value) in self.given or is_read_stand_in(value):  # its reads are guarded
            return
        self.given.add(id(value))
        rules = _state_kind(value)
        if rules is not None:
            self.watched.append((value, rules[0](value), rules[1]))
        # arguments' structure (the tracer copies lists); numbers and tuples of numbers hold
        # nothing to watch
        if type(value) in _SEQUENCES and not _bare(value):
            for item in value:
                self._add(item)

    def is_given(self, value: Any) -> bool:
        return id(value) in self.given

    def undo(self) -> list[tuple[Any, Any, Callable]]:
        """Put back what the trace changed; the changed values, with their old state."""
        changed = [
            (v, old, restore)
            for v, old, restore in self.watched
            if _changed(old, _state_kind(v)[0](v))
        ]
        for value, old, restore in changed:
            restore(value, old)
        return changed

    def check(self, message: str = _GIVEN) -> None:
        """Undo the trace's changes and break, if it made any or left a traced value inside;
        ``message`` says what changed what (``{kind}``: the changed value's type)."""
        leaked = [
            v for v, _, _ in self.watched if holds_traced(v) and id(v) not in self.traced_from_start
        ]
        changed = self.undo()
        if changed or leaked:
            kind = type(changed[0][0] if changed else leaked[0]).__name__
            raise TraceBreak(TraceReason.SIDE_EFFECT, message.format(kind=kind))


@contextmanager
def unchanged(fn: Callable, what: str) -> Iterator[None]:
    """Break (after undoing them) if tracing ``fn`` changed a list, dict, set or object it
    reads: a traced body runs once (or twice, or each branch once), so ``ys.append(y)`` on a
    list made before the loop would be missing from every iteration but one compiled."""
    watch = Watch(read_by(fn))
    try:
        yield
    except BaseException:
        watch.undo()  # the region runs as Python from the start: leave what it reads as it was
        raise
    watch.check(
        f"the {what} changes a {{kind}} made outside it, or stores a computed value "
        "in it; compiled, that would happen once, not on every pass"
    )
