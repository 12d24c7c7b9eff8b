"""Frozen mode (``astcompile.run``, ``mode="frozen"``): call what is compiled, compile nothing.

The mode is per thread; :class:`~astcompile.jit.regions.Region` reads it on a miss (after the
entry cache), :func:`frozen` sets it for a block.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

_local = threading.local()


def frozen_mode() -> str | None:
    """None normally; "frozen" or "strict" inside ``astcompile.run`` (no new compiles)."""
    return getattr(_local, "frozen", None)


@contextlib.contextmanager
def frozen(strict: bool = False) -> Iterator[None]:
    """Within the block a region miss runs in NumPy, or raises :class:`FrozenMiss` (strict)."""
    previous = frozen_mode()
    _local.frozen = "strict" if strict else "frozen"
    try:
        yield
    finally:
        _local.frozen = previous


class FrozenMiss(Exception):
    """A strict frozen call met a region with no compiled entry for its arguments."""
