"""Wake plain-running functions now and then, so that measuring can look again.

A compiled function that measuring sent to the plain path runs with no Python of ours on its
call (its class's ``__call__`` is the user's function itself: see ``CompiledFunction.run_plain``),
so no call counter can say when to sample it again. Time can: each such function is scheduled
here with a delay that doubles after every sample that confirms the choice; when it is due, it
is switched back to the measuring path with one sampled call pending, and that call decides
(plain again and rescheduled, or a new comparison). A function that is not called meanwhile
costs nothing: it simply waits, measured, for its next call.

One daemon thread sleeps until the earliest deadline; it starts with the first schedule. Tests
use an unthreaded :class:`Resampler` and call :meth:`Resampler.run_due` themselves.
"""

from __future__ import annotations

import heapq
import itertools
import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import Protocol


class Wakeable(Protocol):
    def wake(self) -> None: ...


class Resampler:
    """Deadlines of plain-running functions (weakly held), and the thread that meets them."""

    def __init__(self, threaded: bool = True, wall: Callable[[], float] = time.monotonic) -> None:
        self.threaded = threaded
        self.wall = wall
        self._heap: list[tuple[float, int, weakref.ref]] = []
        self._order = itertools.count()  # ties: first scheduled, first woken
        self._cond = threading.Condition(threading.Lock())
        self._thread: threading.Thread | None = None

    def schedule(self, target: Wakeable, delay: float) -> None:
        with self._cond:
            entry = (self.wall() + delay, next(self._order), weakref.ref(target))
            heapq.heappush(self._heap, entry)
            if self.threaded and self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="astcompile-resampler", daemon=True
                )
                self._thread.start()
            self._cond.notify()

    def pending(self) -> int:
        return len(self._heap)

    def run_due(self, now: float) -> int:
        """Wake every target due by ``now``; how many were woken."""
        with self._cond:
            due = []
            while self._heap and self._heap[0][0] <= now:
                due.append(heapq.heappop(self._heap)[2])
        woken = 0
        for ref in due:
            target = ref()
            if target is not None:
                target.wake()
                woken += 1
        return woken

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._heap:
                    self._cond.wait()
                wait = self._heap[0][0] - self.wall()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
            self.run_due(self.wall())

    def after_fork(self) -> None:
        """In a forked child the thread is gone: wake everything (the child samples afresh,
        and its next schedule starts a thread of its own)."""
        self._cond = threading.Condition(threading.Lock())
        self._thread = None
        due, self._heap = self._heap, []
        for _, _, ref in due:
            target = ref()
            if target is not None:
                target.wake()


#: The process's resampler; tests replace it with an unthreaded one.
resampler = Resampler()


def _after_fork_in_child() -> None:
    resampler.after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
