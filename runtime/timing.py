"""Cumulative compile-time totals per phase, read by ``astcompile.compile_times()``.

Phases: ``passes``, ``codegen``, ``build`` (the C compiler), ``load`` (cache look-up and dlopen).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from . import forksafe

#: phase name -> cumulative seconds spent in it by this process.
compile_times: dict[str, float] = {}
#: How many phases have started in this process: a call that saw it change compiled something
#: (``astcompile.jit.tiering`` drops such a call's time from its comparison).
events = 0
_lock = forksafe.module_lock(__name__)


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Add the time spent in the ``with`` block to ``compile_times[name]``."""
    global events
    events += 1
    start = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - start
        with _lock:
            compile_times[name] = compile_times.get(name, 0.0) + elapsed


def reset() -> None:
    with _lock:
        compile_times.clear()
