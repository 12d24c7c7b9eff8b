"""A compiled function none of whose code can run compiled yet runs as written, timed.

While compiling is put off (``jit/budget.py``: the budget is spent, or a region's only build is
still in the background), every region of such a function runs its statements anyway: going
through the rewrite, the guards and each region's own wait only adds microseconds to what the
user's function does (a 2 µs function ran 5x slower, and no sample of it counted). So the first
region call that waits with no compiled entry anywhere in its function moves the function onto
a *waiting* path: a call is the user's function, its time paid into the budget (the whole
call's, since the whole call ran as written), and nothing else. It leaves that path, back to
measuring, once the time so run pays for compiling again, or when a build lands
(``CompiledFunction.compare_again``).

Timing each call costs a Python frame and two clock reads around it: a 0.6 µs BLAS-1 swap ran
at 0.85x plain while its build went on. So the path times its calls in *windows* of
``WINDOW`` calls, and between two windows the function is on its plain route (the user's
function and nothing else, ``CompiledFunction.run_plain``) for a gap that doubles from
``FIRST_GAP`` to ``MAX_GAP`` seconds (a window lasts at least an eighth of the gap after
it, so that the calls time about 10% of the wall time); the resampler (``jit/resample.py``) opens the next window.
A gap is paid into the budget at the share of wall time the function took in the windows on
either side of it, the lower of the two (a window's time runs from its opening, so a function
that stopped being called meanwhile pays next to nothing). A build that lands opens a window at
once, whose first call leaves the path.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile import config
from astcompile.jit import pickling, resample, telemetry
from astcompile.jit.warn_twin import plain_caller
from astcompile.runtime import fastcall

if TYPE_CHECKING:
    from astcompile.jit.function import CompiledFunction

#: Calls timed per window; seconds on the plain route after the first window, doubling; the
#: least time a window stays open, as a share of the gap after it (a window of 16 calls of
#: 0.6 µs that the resampler opened while the caller did other work measured that work).
WINDOW = 16
FIRST_GAP = 0.01
MAX_GAP = 0.5
SPAN = 0.125


class Waiting:
    """One function's waiting path: until when it runs, whether a call of it is running (a
    call of itself inside one is part of that one's time, not counted again), and its windows:
    calls left in the one open, when it opened and the time its calls took, the share of wall
    time the last one measured, and the gaps between them."""

    __slots__ = (
        "__weakref__",
        "gap",
        "last_gap",
        "left",
        "opened",
        "owner",
        "rest",
        "running",
        "seconds",
        "share",
        "timed",
        "until",
    )

    def __init__(self, owner: CompiledFunction, until: float) -> None:
        self.owner = owner
        self.until = until  # the budget's ``waited`` at which compiling may go on
        self.running = False
        self.timed: Callable[..., Any] = owner.fn  # the timed call, set by enter
        self.left, self.opened, self.seconds = WINDOW, time.perf_counter(), 0.0
        self.share, self.gap = 1.0, FIRST_GAP
        self.rest: float | None = None  # when the gap under way began; None in a window
        self.last_gap = 0.0  # the gap before the window open, not yet paid

    def wake(self) -> None:
        """A window opens (the resampler's wake, or a build that landed): calls are timed."""
        owner = self.owner
        with owner._tier.lock:
            if owner.waiting is not self or self.rest is None:
                return  # left the path, or in a window already
            now = time.perf_counter()
            self.last_gap, self.rest = now - self.rest, None
            self.left, self.opened, self.seconds = WINDOW, now, 0.0
            _route(owner, self.timed)


def enter(owner: CompiledFunction, pending: bool) -> None:
    """Move ``owner`` onto its waiting path if none of its regions has compiled code; with a
    ``pending`` build it waits for that (``resume``), else for the budget to pay back."""
    if not _applies(owner):
        return
    budget = owner.budget
    state = Waiting(owner, math.inf if pending else budget.waited_to_resume())
    state.timed = _timed_call(owner, state)
    with owner._tier.lock:
        if type(owner) is not owner._measured_class or owner._tier.plain:
            return  # measuring or its choice moved it meanwhile
        owner.waiting = state
        _route(owner, state.timed)
    if pending and not any(region.pending for region in owner._live_regions):
        resume(owner)  # its build landed since ``_applies`` looked: its resume found no state


def _route(owner: CompiledFunction, timed: Callable[..., Any]) -> None:
    """``owner``'s calls go to ``timed`` (its tier's lock held)."""
    switch = fastcall.switch_type()
    if switch is not None and isinstance(owner, switch):
        switch.route(owner, timed, False, None)
    else:
        owner.__class__ = pickling.calling(owner._measured_class, timed)


def _applies(owner: CompiledFunction) -> bool:
    """Only a function with no compiled region, outside explain and verify (they show the
    compiled code), whose call's time is its work: not a generator's or a coroutine's (a call
    returns at once), nor under the eager backend (the debugging rung runs graphs on purpose)."""
    if telemetry.recording or config.verify or owner.mode == "frozen":
        return False
    code = getattr(owner.fn, "__code__", None)
    if code is None or code.co_flags & _LAZY or owner.target_name() == "eager":
        return False
    return not any(region.entries for region in owner._live_regions)


_LAZY = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def resume(owner: CompiledFunction) -> None:
    """A build landed (or the compiled path changed): the next call measures again."""
    state = owner.waiting
    if state is not None:
        state.until = -math.inf
        state.wake()


def _timed_call(owner: CompiledFunction, state: Waiting) -> Callable[..., Any]:
    fn, budget, clock = plain_caller(owner.fn), owner.budget, time.perf_counter

    def waiting_call(*args: Any, **kwargs: Any) -> Any:
        if state.running:  # a call of itself: part of the outer call's time
            return fn(*args, **kwargs)
        if budget.waited >= state.until or telemetry.recording or config.verify:
            _leave(owner, state)
            return owner(*args, **kwargs)
        state.running = True
        start = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            state.running = False
            took = clock() - start
            budget.waited += took
            state.seconds += took
            state.left -= 1
            if state.left <= 0 and start + took - state.opened >= state.gap * SPAN:
                _close_window(owner, state)

    waiting_call.__wrapped__ = owner.fn  # type: ignore[attr-defined]
    return waiting_call


def _close_window(owner: CompiledFunction, state: Waiting) -> None:
    """The window is full: pay the gap before it into the budget, then the plain route for
    the next gap (none while explain or verify look: they leave the path on the next call)."""
    now = time.perf_counter()
    share = min(1.0, state.seconds / max(now - state.opened, 1e-9))
    owner.budget.waited += min(share, state.share) * state.last_gap
    state.share, state.last_gap = share, 0.0
    with owner._tier.lock:
        if owner.waiting is not state or owner.budget.waited >= state.until:
            state.left = WINDOW  # the next call leaves the path
            return
        owner.run_plain()
        state.rest = time.perf_counter()
    resample.resampler.schedule(state, state.gap)
    state.gap = min(state.gap * 2, MAX_GAP)


def _leave(owner: CompiledFunction, state: Waiting) -> None:
    with owner._tier.lock:
        if owner.waiting is state:
            owner.waiting = None
            owner.run_measured()
