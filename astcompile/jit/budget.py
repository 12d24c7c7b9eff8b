"""Total time, not steady state: what compiling may cost a function's calls.

A program's user waits for its whole run, compiling included: the first calls compiled must not
take much longer than the same calls plain. So compiling in the user's thread has a budget, per
compiled function, measured in that function's own time (the rule is published in docs/api.md):

    compiling may go on while  spent < config.compile_budget + RATIO * waited

``spent`` is the time the function's calls have spent compiling (its rewrite, each region's
trace and build); ``waited`` is the time its regions have run as written because compiling them
was put off. The first ``compile_budget`` seconds (0.5 by default) are free, so an ordinary
first call compiles at once, as before. Past them:

* a region's build (everything after its trace) runs on the background thread
  (``jit/background.py``) and the call waits for it only as long as the budget has left: a
  build done in time is the call's own (compiled result, or its error raised), as if built in
  the call; past that, the statements run as written and the call after the build runs compiled
  (a slow C compiler never holds a call longer than the budget);
* a region that misses with the budget spent is not traced at all: its statements run, timed,
  and it tries again once the time so waited pays for it (the ski-rental rule: compiling never
  costs more than the floor plus the time spent running plain, so a whole run is at most about
  twice its plain time plus the floor, however slow compiling is).

A function none of whose regions has compiled code meanwhile runs as written, whole, from its
next call (``jit/waiting.py``): each call is the user's function, timed, its whole time counted
in ``waited`` (so compiling resumes after ``(spent - compile_budget) / RATIO`` seconds of its
calls, however little of them its regions are), until that pays or its build lands. A sampled
call that waited is no sample of either path, and the next sample comes an interval later
(``timing.waits``, ``jit/tiering.py``).

The budget does not apply under ``explain`` or verify mode (they show the compiled code), to a
``fullgraph=True`` function's traces (its breaks must raise on the first call), nor while
``astcompile build`` compiles ahead of time. ``compile_budget = inf``
(``ASTCOMPILE_COMPILE_BUDGET=inf``) compiles everything at once, as the tests do.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from astcompile import config
from astcompile.jit import telemetry, warm
from astcompile.runtime import timing

#: Compile seconds allowed per second run plain while waiting for compiled code.
RATIO = 1.0


class Budget:
    """One compiled function's compile time and the time its regions waited for it."""

    __slots__ = ("since", "spent", "traces_always", "waited")

    def __init__(self, traces_always: bool = False) -> None:
        self.spent = 0.0
        self.waited = 0.0
        self.since: float | None = None  # when the compile under way started
        self.traces_always = traces_always  # fullgraph=True: breaks must raise at once

    def may_trace(self) -> bool:
        """Whether a region may trace now (then :meth:`allows` says where it is built)."""
        return self.traces_always or self.allows()

    def allows(self) -> bool:
        """Whether the function may compile now, in the user's thread (see the module doc)."""
        return self.left() > 0

    def left(self) -> float:
        """Seconds the function may still spend compiling in the user's thread: how long a
        call may wait for a build before it runs the statements (inf: no bound)."""
        if telemetry.recording > 0 or config.verify or warm.building_ahead():
            return math.inf
        since, spent = self.since, self.spent
        if since is not None:
            spent += time.perf_counter() - since
        return config.compile_budget + RATIO * self.waited - spent

    @contextmanager
    def spending(self) -> Iterator[None]:
        """Charge the time of the block to compiling (a block inside another counts once)."""
        if self.since is not None:
            yield
            return
        self.since = start = time.perf_counter()
        try:
            yield
        finally:
            self.since = None
            self.spent += time.perf_counter() - start

    def waited_to_resume(self) -> float:
        """The ``waited`` at which the function may compile again (spent stays put meanwhile:
        nothing compiles in its calls while it waits)."""
        return (self.spent - config.compile_budget) / RATIO

    def wait_with(self, body: Callable[..., Any], args: tuple) -> Any:
        """Run ``body`` (a region's statements, while its compiled code is put off), timed;
        a sample of the compiled path that runs it times the statements, not compiled code:
        tiering does not count it (it settled on plain while a 400x loop built)."""
        timing.waited()
        start = time.perf_counter()
        try:
            return body(*args)
        finally:
            self.waited += time.perf_counter() - start
