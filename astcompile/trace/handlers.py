"""The table through which the value types and low handlers reach the handlers above them.

``SymArray``'s operators (``a[i]``, ``np.sin(a)``, arithmetic on Python-number unions) run
handlers that import ``SymArray`` themselves, and a few handlers (a gather's loop, a select's
``if``) run the loop handlers that import them; a direct import either way would close an import
cycle. Instead a handler module registers the functions reached from below with
``@handlers.register``, and ``astcompile.trace`` imports every handler module, so the table is
full before any trace runs. Callers look entries up at call time: ``handlers.setitem(a, k, v)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_TABLE: dict[str, Callable] = {}


def register(fn: Callable) -> Callable:
    """Register ``fn`` under its own name: one name, one handler module, across trace/ (a
    reloaded module registers its functions again)."""
    old = _TABLE.setdefault(fn.__name__, fn)
    assert old.__module__ == fn.__module__, f"two trace handlers named {fn.__name__}"
    _TABLE[fn.__name__] = fn
    return fn


def __getattr__(name: str) -> Any:
    try:
        return _TABLE[name]
    except KeyError:
        raise AttributeError(
            f"no trace handler {name!r} (is its module in trace/__init__?)"
        ) from None
