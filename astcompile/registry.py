"""Process-wide marks set by ``disable``, ``allow_in_graph`` and ``disallow_in_graph``.

The marks live here, apart from the API module, because the frontend's resolver reads them
while classifying calls and must not import the API (that would be a cycle).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from astcompile.runtime import forksafe

_lock = forksafe.module_lock(__name__)
_allowed: dict[int, Any] = {}  # id -> object (kept alive so the id stays valid)
_disallowed: dict[int, Any] = {}
#: Bumped by every mark: what was decided about a callee before a mark may have changed.
version = 0

DISABLED_ATTR = "__astcompile_disabled__"  # value: "recursive" or "shallow"
COMPILED_ATTR = "__astcompile_compiled__"  # set on the wrapper returned by compile()


def mark_allowed(obj: Callable) -> None:
    _move(obj, _allowed, _disallowed)


def mark_disallowed(obj: Callable) -> None:
    _move(obj, _disallowed, _allowed)


def _move(obj: Callable, into: dict[int, Any], out_of: dict[int, Any]) -> None:
    global version
    with _lock:
        out_of.pop(id(obj), None)
        into[id(obj)] = obj
        version += 1


def is_allowed_in_graph(obj: Any) -> bool:
    return id(obj) in _allowed


def is_disallowed(obj: Any) -> bool:
    return id(obj) in _disallowed


def disable_mode(obj: Any) -> str | None:
    """``"recursive"``, ``"shallow"`` (``recursive=False``) or None when not disabled."""
    return _mark(obj, DISABLED_ATTR)


def is_compiled(obj: Any) -> bool:
    return _mark(obj, COMPILED_ATTR) is True


def _mark(obj: Any, name: str) -> Any:
    """Our mark on ``obj`` (on a bound method's function), from its own ``__dict__``: never a
    call of the user's ``__getattr__``, which may count or change what it is asked."""
    if type(obj) is types.MethodType:
        obj = obj.__func__
    try:
        own = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return None
    return own.get(name) if type(own) is dict else None
