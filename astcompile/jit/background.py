"""Builds under a compile budget (``jit/budget.py``), on one daemon thread.

Only what follows a trace goes here: the graph passes, lowering and the C compiler work on the
traced graph alone, never on the user's objects (a trace runs the user's statements on stand-ins
of their arguments and must happen in the user's thread, where nothing else touches them).
While a region's build is queued or running, its key is *pending*: its calls run the region's
statements (``Region.call``), except the call that traced it, which waits for the build as long
as the budget has left (:class:`Handoff`): a build is never a reason for a call to take longer
than the budget. When the build is done the entry joins the region and the function compares
its paths again (``jit/tiering.py``).

A process forked meanwhile has no such thread: the child forgets the pending keys (they compile
again on their next miss) and starts its own thread when it needs one. :func:`wait` is for
tests and benchmarks that want the compiled code before their next call.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import threading
import warnings
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile import config
from astcompile.jit import waiting
from astcompile.jit.fp_errors import run_entry
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


class Handoff:
    """A build its calling thread waits for, up to a deadline. Finished in time, its outcome is
    the caller's (the entry it made, or its error to raise), as if built in the call; past it,
    the caller runs the region's statements and the outcome is the background's to report."""

    __slots__ = ("_lock", "done", "error", "waiting", "work")

    def __init__(self, work: Any) -> None:
        self.work = work  # the traced region: its entry and observed values, once built
        self.error: Exception | None = None
        self.waiting = True
        self.done = threading.Event()
        self._lock = threading.Lock()

    def wait(self, seconds: float) -> bool:
        """Whether the build finished within ``seconds`` (then its outcome is the caller's)."""
        self.done.wait(max(seconds, 0.0))
        with self._lock:
            self.waiting = self.done.is_set()
            if not self.waiting:
                _owed.add(self)
            return self.waiting

    def report(self, error: Exception | None) -> bool:
        """From the build: its outcome; True when a waiting caller takes it."""
        with self._lock:
            self.error = error
            self.done.set()
            _owed.discard(self)
            return self.waiting


#: Builds a call stopped waiting for. The program's end waits for them (each bounded by
#: ``config.build_timeout``), so that the next process finds them in the cache: a run that
#: makes one call pays the rest of its build at exit instead of in the call, never twice.
_owed: set[Handoff] = set()


def _finish_owed() -> None:
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C at exit: stop waiting, quietly
        for handoff in list(_owed):
            handoff.done.wait(config.build_timeout or None)


atexit.register(_finish_owed)  # before runtime/build.py's, which kills running compilers


class Builds:
    """How a region (``jit/regions.py``) hands its builds to the background thread and waits
    for them: the part of :class:`~astcompile.jit.regions.Region` this module runs."""

    def _wait(self, args: tuple, pending: bool = False) -> tuple:
        """The statements, timed, while compiled code is put off or built (jit/budget.py);
        a function with no compiled code at all runs as written from its next call on."""
        self.stats.eager_calls += 1
        waiting.enter(self.owner, pending)
        return self.owner.budget.wait_with(self.body, args)

    def _build_later(self, work: Any) -> bool:
        """After the trace, under a budget: the build goes to the background (True) and this
        call waits for it as long as the budget has left (:meth:`_built`); without one
        (``inf``, explain, verify) it goes on here (False)."""
        left = self.owner.budget.left()
        if left == float("inf"):
            return False
        self.pending.add(work.key)
        handoff = Handoff(work) if left > 0 else None
        if handoff is not None:
            self.handoffs[work.key] = handoff
        submit(self, lambda: self._finish(work, handoff))
        return True

    def _built(self, key: tuple, args: tuple) -> tuple:
        """This call's result once the build of ``key`` is done within the budget left: run
        compiled, or its error raised, as a build in this thread does; else the statements."""
        handoff, budget = self.handoffs.pop(key, None), self.owner.budget
        with budget.spending():
            if handoff is None or not handoff.wait(budget.left()):
                handoff = None
        if handoff is None:
            return self._wait(args, pending=key in self.pending)
        entry, work = handoff.work.entry, handoff.work
        if handoff.error is not None:
            raise handoff.error
        if entry is None:
            return self.run_after_failure(key, args)
        leaves = entry.bind(args, self.owner.fn, work.observed)  # nothing read twice
        if leaves is None:  # a guard of the new entry fails already
            return self._eager(args)
        return run_entry(self, entry, leaves, args)  # NumPy's warnings: jit/fp_errors.py

    def _finish(self, work: Any, handoff: Handoff | None) -> None:
        """The build :meth:`_build_later` put off, on the background thread."""
        from astcompile import pipeline

        error = None
        try:
            try:
                with self._lock:
                    pipeline.finish_region(work)
            except Exception as exc:  # noqa: BLE001 - raised in the waiting call, or warned
                error = exc
            else:
                self.pending.discard(work.key)  # before the waiting call wakes
            if handoff is not None and handoff.report(error):
                return  # the call that waited took the outcome, as if built in it
            if error is not None:  # no user call to raise it in: said, and given up
                why = f"building {self.spec.name} in the background failed: {error}"
                warnings.warn(
                    f"astcompile: {self.owner.name}: {why}; it runs as written",
                    RuntimeWarning,
                    stacklevel=1,
                )
                with self._lock:
                    self.give_up(work.key, work.args, why)
        finally:
            self.pending.discard(work.key)
        waiting.resume(self.owner)  # a function waiting for it measures again
        self.owner.compare_again()  # the compiled path changed


def wait() -> None:
    """Return once every build submitted so far is done."""
    _jobs.join()


def _forget_in_child() -> None:
    global _jobs, _thread
    _jobs, _thread = queue.Queue(), None
    _owed.clear()
    for region in list(_waiting):
        region.pending.clear()
        region.handoffs.clear()  # no thread of the child builds them
        waiting.resume(region.owner)  # nor resumes a function waiting for them
    _waiting.clear()
    # the build thread imports the compiler's modules as it first needs them
    # (``passes/pass_list.py``): one it was importing at the fork is imported again
    forksafe.forget_half_imported(("astcompile.",))


os.register_at_fork(after_in_child=_forget_in_child)
