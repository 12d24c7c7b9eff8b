"""Builds the compile budget put off (``jit/budget.py``), on one daemon thread.

Only what follows a trace goes here: the graph passes, lowering and the C compiler work on the
traced graph alone, never on the user's objects (a trace runs the user's statements on stand-ins
of their arguments and must happen in the user's thread, where nothing else touches them).
While a region's build is queued or running, its key is *pending*: its calls run the region's
statements (``Region.call``). When the build is done the entry joins the region and the
function compares its paths again (``jit/tiering.py``).

A process forked meanwhile has no such thread: the child forgets the pending keys (they compile
again on their next miss) and starts its own thread when it needs one. :func:`wait` is for
tests and benchmarks that want the compiled code before their next call.
"""

from __future__ import annotations

import os
import queue
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile.runtime import forksafe

if TYPE_CHECKING:
    from astcompile.jit.protocols import CompilingRegion

_jobs: queue.Queue[tuple[Any, Callable[[], None]]] = queue.Queue()
_thread: threading.Thread | None = None
_waiting: weakref.WeakSet[Any] = weakref.WeakSet()  # regions with a pending key
_start = forksafe.module_lock(__name__, "_start")


def submit(region: CompilingRegion, job: Callable[[], None]) -> None:
    """Run ``job`` (it finishes one of ``region``'s builds) on the background thread."""
    global _thread
    _waiting.add(region)
    _jobs.put((region, job))
    with _start:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_work, name="astcompile-builds", daemon=True)
            _thread.start()


def _work() -> None:
    while True:
        _region, job = _jobs.get()
        try:
            job()  # reports its own failures (the region runs its statements)
        finally:
            _jobs.task_done()


def wait() -> None:
    """Return once every build submitted so far is done."""
    _jobs.join()


def _forget_in_child() -> None:
    global _jobs, _thread
    _jobs, _thread = queue.Queue(), None
    for region in list(_waiting):
        region.pending.clear()
    _waiting.clear()


os.register_at_fork(after_in_child=_forget_in_child)
