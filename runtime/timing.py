"""Cumulative compile-time totals per phase, read by ``astcompile.compile_times()``.

The phases are the compile pipeline's stage names (``astcompile/pipeline.py``); the runtime adds
``build`` (the C compiler) inside the ``load`` stage. Phases never overlap: time spent in a
phase nested inside another (the compiler inside ``load``, a callee's analysis inside ``trace``)
is charged to the inner phase only, so the totals add up to the time spent compiling.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from . import forksafe

#: phase name -> cumulative seconds spent in it (and not in a phase nested inside it).
compile_times: dict[str, float] = {}
#: How many phases have started in this process: a call that saw it change compiled something
#: (``astcompile.jit.tiering`` drops such a call's time from its comparison).
events = 0
_lock = forksafe.module_lock(__name__)
_open = threading.local()  # per thread: the seconds the open phases' nested phases took


def not_steady() -> None:
    """Mark the call under way as no steady-state time: it ran statements whose compiled code
    is being built or is put off (``jit/budget.py``), so timing it says nothing of either path."""
    global events
    events += 1


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Add the time spent in the ``with`` block, less its nested phases, to ``compile_times``."""
    global events
    events += 1
    nested: list[float] | None = getattr(_open, "nested", None)
    if nested is None:
        nested = _open.nested = []
    nested.append(0.0)
    start = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - start
        inner = nested.pop()
        if nested:
            nested[-1] += elapsed
        with _lock:
            compile_times[name] = compile_times.get(name, 0.0) + elapsed - inner


def reset() -> None:
    with _lock:
        compile_times.clear()
