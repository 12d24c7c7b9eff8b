"""The globals an entry reads, as the C-level call path checks them (``fastcall.c``).

A region's reads (``runtime/reads.py``) become ``(scope, name, kind, expected)``: ``scope`` a
constant dict (the globals of the user's function or of a callee, a plain module's
``__dict__``, the builtins) and ``scope[name]`` one dict look-up, or ``(function,
"__code__", ...)``. A builtin the region calls (``len``, ``range``) is two reads: its name is
not a global (kind ``absent``: ``fastcall.c``'s OP_ABSENT) and the builtins still hold the
object traced. Anything else keeps the entry on the Python guard function.

Part of the runtime: must not import the compiler.
"""

from __future__ import annotations

import types
from typing import Any

from .reads import ReadKind

_BUILTINS = ("item", "__builtins__")


def global_reads(reads: tuple, root: Any) -> list[tuple] | None:
    """The reads as ``(scope, name, kind, expected)`` (see the module docstring); else None.
    Each scope is a constant: the function or module it belongs to is checked by identity
    first (a function's builtins too, which the guard function looks up again each call)."""
    found: list[tuple] = []
    held: dict[tuple, Any] = {(("fn",),): root}  # path -> the object checked to be there
    for read in reads:
        kind, expected = read.kind, read.expected
        if kind is ReadKind.SAME:  # the object at another path, held by identity there
            if read.expected not in held:
                return None
            kind, expected = ReadKind.IDENTITY, held[read.expected]
        if read.path[-1][0] == "contains":
            place = _absent(read.path, kind, expected, held)
            if place is None:
                return None
            found.append(place)
            continue
        if read.path[-2:-1] == (_BUILTINS,) and not _hold_builtins(read.path[:-1], held, found):
            return None
        place = _place(read.path, held)
        if place is None:
            return None
        found.append((*place, kind.value, expected))
        if kind is ReadKind.IDENTITY:
            held[read.path] = expected
    return found


def _absent(path: tuple, kind: ReadKind, expected: Any, held: dict) -> tuple | None:
    """``name in f.__globals__`` read False (a name CPython then finds in builtins), as the
    check that the name is still no global of ``f``."""
    owner, step = held.get(path[:-2]), path[-1]
    if path[-2:-1] != (("gdict",),) or not _plain_globals(owner):
        return None
    if kind is not ReadKind.VALUE or expected is not False or type(step[1]) is not str:
        return None
    return (owner.__globals__, step[1], "absent", None)


def _hold_builtins(path: tuple, held: dict, found: list) -> bool:
    """Hold ``f.__globals__['__builtins__']`` (a module or a dict) by identity, so that a
    builtin read there is one look-up in a constant dict; False where it is neither."""
    if path in held:
        return True
    place = _place(path, held)
    if place is None or place[1] not in place[0]:
        return False
    value = place[0][place[1]]
    if type(value) is not types.ModuleType and type(value) is not dict:
        return False
    found.append((*place, ReadKind.IDENTITY.value, value))
    held[path] = value
    return True


def _plain_globals(owner: Any) -> bool:
    """A function whose globals are a ``dict`` itself: CPython reads a subclass's through its
    ``__getitem__`` (``__missing__``), which one dict look-up in C does not."""
    return type(owner) is types.FunctionType and type(owner.__globals__) is dict


def _place(path: tuple, held: dict) -> tuple[Any, str] | None:  # whose owner is held
    step = path[-1]
    if step == ("code",):
        owner = held.get(path[:-1])
        return (owner, "__code__") if type(owner) is types.FunctionType else None
    if step[0] == "item" and path[-2:-1] == (("gdict",),) and type(step[1]) is str:
        owner = held.get(path[:-2])
        return (owner.__globals__, step[1]) if _plain_globals(owner) else None
    owner = held.get(path[:-1])
    if step[0] == "attr" and type(owner) is types.ModuleType and step[1] in vars(owner):
        return vars(owner), step[1]
    if step[0] == "item" and path[-2:-1] == (_BUILTINS,) and type(owner) is dict:
        return (owner, step[1]) if type(step[1]) is str else None
    return None
