"""Warnings hidden from the compiling thread only.

The compiler runs NumPy on examples that are not the user's data (a dtype probe, a constant
fold) and imports libcst, whose dependency warns as it is imported: those warnings are not the
user's. ``warnings.catch_warnings`` would hide them by swapping the process-wide filters and
``showwarning``, which hid or misfiltered what the user's other threads warned meanwhile (a
compile runs in the background). Instead one filter stays first in the list: ``ignore``,
whose message pattern matches only in a thread inside :func:`hidden`. Other threads pass it
by, so their warnings meet exactly the filters they would without it.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator

_state = threading.local()
_lock = threading.Lock()


class _InHiddenSection:
    """A message "pattern" the warnings machinery calls as ``pattern.match(text)``."""

    def match(self, text: str) -> bool:
        return getattr(_state, "depth", 0) > 0


_FILTER = ("ignore", _InHiddenSection(), Warning, None, 0)


@contextlib.contextmanager
def hidden() -> Iterator[None]:
    """No warning issued in this thread inside the block is shown or raised."""
    if not warnings.filters or warnings.filters[0] is not _FILTER:
        with _lock:  # a filter added since (pytest's per test, the user's) went first
            filters = warnings.filters
            if _FILTER in filters:
                filters.remove(_FILTER)
            filters.insert(0, _FILTER)
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1
