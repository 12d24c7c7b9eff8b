"""A compiled function none of whose code can run compiled yet runs as written, timed.

While compiling is put off (``jit/budget.py``: the budget is spent, or a region's only build is
still in the background), every region of such a function runs its statements anyway: going
through the rewrite, the guards and each region's own wait only adds microseconds to what the
user's function does (a 2 µs function ran 5x slower, and no sample of it counted). So the first
region call that waits with no compiled entry anywhere in its function moves the function onto
a *waiting* path: a call is the user's function, timed, its time paid into the budget (the whole
call's, since the whole call ran as written), and nothing else. It leaves that path, back to
measuring, once the time so run pays for compiling again, or when a build lands
(``CompiledFunction.compare_again``).
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile import config
from astcompile.jit import pickling, telemetry
from astcompile.runtime import fastcall

if TYPE_CHECKING:
    from astcompile.jit.function import CompiledFunction


class Waiting:
    """One function's waiting path: until when it runs, and whether a call of it is running
    (a call of itself inside one is part of that one's time, not counted again)."""

    __slots__ = ("running", "until")

    def __init__(self, until: float) -> None:
        self.until = until  # the budget's ``waited`` at which compiling may go on
        self.running = False


def enter(owner: CompiledFunction, pending: bool) -> None:
    """Move ``owner`` onto its waiting path if none of its regions has compiled code; with a
    ``pending`` build it waits for that (``resume``), else for the budget to pay back."""
    if not _applies(owner):
        return
    budget = owner.budget
    until = math.inf if pending else budget.waited_to_resume()
    state = Waiting(until)
    timed = _timed_call(owner, state)
    with owner._tier.lock:
        if type(owner) is not owner._measured_class or owner._tier.plain:
            return  # measuring or its choice moved it meanwhile
        owner.waiting = state
        switch = fastcall.switch_type()
        if switch is not None and isinstance(owner, switch):
            switch.route(owner, timed, False, None)
        else:
            owner.__class__ = pickling.calling(owner._measured_class, timed)
    if pending and not any(region.pending for region in owner._live_regions):
        resume(owner)  # its build landed since ``_applies`` looked: its resume found no state


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


def _timed_call(owner: CompiledFunction, state: Waiting) -> Callable[..., Any]:
    fn, budget, clock = owner.fn, owner.budget, time.perf_counter

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
            budget.waited += clock() - start

    waiting_call.__wrapped__ = fn  # type: ignore[attr-defined]
    return waiting_call


def _leave(owner: CompiledFunction, state: Waiting) -> None:
    with owner._tier.lock:
        if owner.waiting is state:
            owner.waiting = None
            owner.run_measured()
