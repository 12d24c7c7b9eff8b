"""Cumulative compile-time totals per phase, read by ``astcompile.compile_times()``.

The phases are the compile pipeline's stage names (``astcompile/pipeline.py``); the runtime adds
``build`` (the C compiler) inside the ``load`` stage. Phases never overlap: time spent in a
phase nested inside another (the compiler inside ``load``, a callee's analysis inside ``trace``)
is charged to the inner phase only, so the totals add up to the time spent compiling.

While any thread is in a phase, the objects that were alive before the compile started are
frozen (``gc.freeze``, undone by ``gc.unfreeze`` when the last phase ends): a compile imports
libcst, the tracer and the code generator, and their objects pushed the collector into a full
collection during the first call (40-60 ms of a 3-line function's 0.3 s, finding nothing to
free). Young objects are collected as usual meanwhile, and nothing stays frozen after it: a
full collection later sees the whole heap again (young objects frozen with it come back old,
as if they had survived two collections). A thread waiting for the C compiler gives the heap
back meanwhile (:func:`waiting`): a frozen object is one ``gc.get_objects()``,
``gc.get_referrers()`` and ``gc.collect()`` pass over, so the heap stays frozen only while the
compile itself runs (milliseconds), not through a build of seconds in the background.

Not done while the collector is off, nor ever again once the program is seen to have frozen
objects itself (a server before it forks): our ``gc.unfreeze`` would unfreeze them too, and
counting them (``gc.get_freeze_count()``) walks them all. A program that freezes from another
thread while a compile runs gets its objects back unfrozen when the compile ends.
"""

from __future__ import annotations

import gc
import os
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
_outer = 0  # threads in a phase now
_froze = False  # whether the first of them froze the heap (the last one unfreezes it)
_program_freezes = False  # the program froze objects itself: never done here from then on


#: How many times a call ran statements whose compiled code is being built or put off
#: (``jit/budget.py``): a call that saw it change is no steady-state time of either path, but
#: unlike one that compiled, the calls after it wait the same way (tiering samples them later).
waits = 0


def waited() -> None:
    """Mark the call under way as one that waited for compiled code (see ``waits``)."""
    global waits
    waits += 1


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Add the time spent in the ``with`` block, less its nested phases, to ``compile_times``."""
    global events
    events += 1
    nested: list[float] | None = getattr(_open, "nested", None)
    if nested is None:
        nested = _open.nested = []
    outermost = not nested
    if outermost:
        _hold_heap()
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
        if outermost:
            _release_heap()


@contextmanager
def waiting() -> Iterator[None]:
    """The calling thread, inside a phase, waits on another process (the C compiler): the heap
    is not held frozen for it meanwhile."""
    _release_heap()
    try:
        yield
    finally:
        _hold_heap()


def _hold_heap() -> None:
    global _outer, _froze, _program_freezes
    with _lock:
        if _outer == 0 and not _program_freezes and gc.isenabled():
            # gc.get_freeze_count() walks the frozen objects: a program that froze its heap
            # (a server before it forks) is seen once, then left to freeze on its own
            if gc.get_freeze_count():
                _program_freezes = True
            else:
                gc.freeze()
                _froze = True
        _outer += 1


def _release_heap() -> None:
    global _outer, _froze
    with _lock:
        _outer = max(_outer - 1, 0)  # a child forked in a phase starts from 0 (below)
        if _outer == 0 and _froze:
            gc.unfreeze()
            _froze = False


def _after_fork_in_child() -> None:
    """The threads that were compiling are gone in a child: nothing may stay frozen there."""
    global _outer, _froze
    _outer = 0
    if _froze:
        gc.unfreeze()
        _froze = False


os.register_at_fork(after_in_child=_after_fork_in_child)


def reset() -> None:
    with _lock:
        compile_times.clear()
