"""Measure, then choose: a compiled function that runs slower than the user's own code runs plain.

Compiled code wins where there is work to fuse; around it, every call pays for guards, argument
marshalling and result boxing, and a Python loop left in the function pays that per iteration.
Only measuring tells which side wins for the calls a program really makes, so a compiled
function times a few of its calls both ways (the compiled path and ``fn`` itself, the user's
own statements) and runs the faster one. Both paths are the same program, so choosing never
changes a result; each call still runs exactly once.

Cost in steady state: on the compiled path, one counter decrement per call; on the plain path,
nothing of ours at all (the function's class calls the user's function directly, see
``CompiledFunction.run_plain``). A sampled call adds two clock reads and a size signature;
samples come in a burst at the start, then at growing intervals: counted in calls on the
compiled path (with jitter, so that a caller alternating sizes cannot hide from them), in time
on the plain path (``jit/resample.py`` switches the function back to measuring for one call).
A plain choice is undone when a sample sees other argument sizes or a slower plain run.
"""

from __future__ import annotations

import inspect
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from astcompile import config, logs
from astcompile.jit import resample
from astcompile.jit.call_sizes import lazy, signature
from astcompile.runtime import timing

_LAZY = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


#: The clock samples are read with; tests replace it (see ``timing_path``).
clock: Callable[[], float] = time.perf_counter
#: Which path a sample is timing ("compiled" or "plain"), and whose tier, for a test's clock.
timing_path: str | None = None
timing_name: str | None = None

WARMUP_CALLS = 2  # the first call compiles; samples start after it
ROUNDS = 3  # timed calls per path in one comparison, at least
#: A close comparison of quick calls takes more rounds, up to MAX_ROUNDS, while the sampled
#: calls together took less than SAMPLE_BUDGET seconds: the first calls of a process run cold,
#: and three microsecond samples can pick the slower path for good.
MAX_ROUNDS = 16
SAMPLE_BUDGET = 2e-3
CLOSE = 1.5  # best times within this factor of each other are "close"
MARGIN = 1.02  # plain must be this much faster to be chosen (noise)
DECISIVE, LONG = 4.0, 1e-3  # compiled this much faster than plain calls this long: decided
DRIFT = 8.0  # a sampled call this much slower than its path's best reopens the comparison
FIRST_INTERVAL = 32  # calls between samples on the compiled path, doubling up to MAX_INTERVAL
MAX_INTERVAL = 4096
FIRST_DELAY = 0.05  # seconds between samples on the plain path, doubling up to MAX_DELAY
MAX_DELAY = 5.0


@dataclass
class Choice:
    """A comparison's outcome, in the words ``explain`` and the perf_hints log use."""

    plain: bool
    compiled_s: float
    plain_s: float
    signature: tuple
    rounds: int = ROUNDS

    def describe(self, written: str = "the function as written") -> str:
        side = f"plain ({written})" if self.plain else "compiled"
        return (
            f"runs {side}: compiled call {_us(self.compiled_s)} vs "
            f"{_us(self.plain_s)} plain (best of {self.rounds} sampled calls each)"
        )


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


class Switch(Protocol):
    """How a tier moves what it measures (a function, a region) between its paths."""

    def settle(self, plain: bool) -> bool:
        """Run the chosen path until the next sample; True when that sample must come from
        the resampler (a timed wake), False when calls count down to it themselves."""
        ...

    def run_measured(self) -> None:
        """Run the measuring path: calls count down, and the next one is a sample."""
        ...

    def run_plain(self) -> None:
        """Run the plain path for a while, uncounted (a sampled plain call's own calls of
        itself then cost what they cost plain)."""
        ...


class Measured(Switch, Protocol):
    """What tiering needs of a compiled function: it is its own tier's switch."""

    name: str
    fn: Callable

    def target_name(self) -> str: ...


@dataclass
class Tier:
    """One compiled function's measurements and choice. The owner reads ``plain`` and counts
    ``countdown`` down on every call; at zero it hands the call to :meth:`sampled_call`."""

    name: str
    countdown: int = WARMUP_CALLS
    plain: bool = False
    choice: Choice | None = None
    pending: list[str] = field(default_factory=list)  # paths still to time in this comparison
    times: dict[str, list[float]] = field(default_factory=dict)
    signatures: set = field(default_factory=set)
    sign: Callable[[tuple, dict], tuple] = signature  # what counts as "the same sizes"
    margin: float = MARGIN  # how much faster plain must be to be chosen
    interval: int = FIRST_INTERVAL
    delay: float = FIRST_DELAY
    postponed: int = 0  # calls that waited for regions to settle (``region_tiering.settling``)
    opened: int = 0  # comparisons started: a sample that saw this change times no path now
    doubted: bool = False  # the last steady-state sample drifted: the next one decides
    #: A compiled choice made on two plain samples (``_decisive``) times plain once more, when
    #: samples are MAX_INTERVAL calls apart: two preempted plain calls do not choose for good,
    #: and the plain call it costs is spread over thousands of compiled ones.
    confirm: bool = False
    on_choice: Callable[[Tier, Choice], None] | None = None
    switch: Switch | None = None  # without one, plain calls still pass the countdown
    #: (thread, path) of the sample running now: a recursive call inside it is part of that
    #: sample and runs the same path, neither timed alone nor counted as another size
    sampling: tuple[int, str] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def sampled_call(
        self,
        compiled: Callable,
        plain: Callable,
        args: tuple,
        kwargs: dict,
        nested: bool = False,
    ) -> Any:
        """Time the call on the path the comparison needs next. A call ``nested`` in a running
        call of the same function (recursion) is no sample: its time is part of the outer
        call's, and its arguments are not the sizes the program calls it with."""
        if any(lazy(a) for a in (*args, *kwargs.values())):
            return compiled(*args, **kwargs)  # timing it would time building a task graph
        if self.sampling == (threading.get_ident(), "plain"):
            return plain(*args, **kwargs)  # recursion inside a sample: part of it, same path
        if self.sampling is not None and self.sampling[0] == threading.get_ident():
            return compiled(*args, **kwargs)
        if nested:
            return self._not_now(compiled, plain, args, kwargs)
        if not self.pending and self.choice is None:
            self._open()
        try:
            path = self.pending[0]
        except IndexError:  # none pending (or another thread took the last one)
            confirming = self.confirm and self.interval >= MAX_INTERVAL
            path = "plain" if self.plain or confirming else "compiled"
        opened = self.opened
        result, seconds, clean = self._sample(path, compiled, plain, args, kwargs)
        sig = self.sign(args, kwargs)
        if not self.lock.acquire(blocking=False):  # another thread is recording: skip this one
            return result
        try:
            if opened != self.opened:  # reopened meanwhile: it may have timed the old path
                if self.pending:  # else decided meanwhile, its countdown (NEVER: woken) set
                    self.countdown = 1
            elif path in self.pending:
                self._record(path, seconds, clean, sig)
            elif self.choice is not None:
                self._check(path, seconds, clean, sig)
        finally:
            self.lock.release()
        return result

    def _sample(
        self, path: str, compiled: Callable, plain: Callable, args: tuple, kwargs: dict
    ) -> tuple[Any, float, bool | None]:
        """One timed call on ``path``. Its calls of itself run the same path at that path's
        own cost: the plain path runs unmeasured meanwhile (a recursive call reaches the
        user's function directly), the compiled one calls itself directly (``dispatch``)."""
        run = plain if path == "plain" else compiled
        outer, self.sampling = self.sampling, (threading.get_ident(), path)
        unmeasured = path == "plain" and self.switch is not None
        if unmeasured:
            self.switch.run_plain()
        try:
            return _timed(self.name, path, run, args, kwargs)
        finally:
            self.sampling = outer
            if unmeasured and self.countdown != NEVER:  # not settled by another thread meanwhile
                self.switch.run_measured()

    def plain_meanwhile(self, run: Callable, args: tuple, kwargs: dict) -> Any:
        """``run`` with the owner on its plain path meanwhile: a recursion past its compiled
        levels (jit/dispatch.py) reaches the user's function by its name (the compiled
        object) with no frame of ours, as deep as the plain function goes. Other threads'
        calls run plain meanwhile too (the user's own function: the same answers). Back to
        measuring after, unless measuring chose plain meanwhile."""
        self.switch.run_plain()
        try:
            return run(*args, **kwargs)
        finally:
            if not self.plain:
                self.switch.run_measured()

    def _not_now(self, compiled: Callable, plain: Callable, args: tuple, kwargs: dict) -> Any:
        """A due sample landed inside a call of the same function: run the chosen path and
        leave the sample for a later call (the plain path, woken mid-recursion, waits again)."""
        if self.choice is not None and not self.pending:
            with self.lock:
                self._schedule(longer=False)
        return plain(*args, **kwargs) if self.plain else compiled(*args, **kwargs)

    def reopen(self, cheaper: bool = False) -> None:
        """Compare again from the next call: the compiled path changed (a build landed, a
        region chose another path), or only got ``cheaper`` (the C call path came in). A
        comparison under way starts over without its compiled samples (kept, they chose plain
        for good after a slow start: a plain choice is not measured against compiled again).
        A compiled choice that only got cheaper stands (each plain sample costs a plain call)."""
        with self.lock:
            if cheaper and self.choice is not None and not self.plain and not self.pending:
                return
            if self.pending or self.choice is not None:  # _open samples from the next call
                self._open(keep_plain=True)
                if self.switch is not None:
                    self.switch.run_measured()

    def _open(self, keep_plain: bool = False) -> None:
        """Start a comparison: both paths, alternating, ROUNDS times each; ``keep_plain``: only
        the compiled path changed, its plain samples stand (else builds landing kept it open)."""
        self.opened, self.doubted = self.opened + 1, False  # a sample under way: in none now
        plain = self.times.get("plain", [])[-ROUNDS:] if keep_plain else []
        self.pending = ["compiled", "plain"] * ROUNDS
        for _ in plain:
            self.pending.remove("plain")
        self.times = {"compiled": [], "plain": plain}
        if not plain:
            self.signatures = set()
        self.countdown = 1

    def _record(self, path: str, seconds: float, clean: bool | None, sig: tuple) -> None:
        # it waited for compiled code: so will the next calls, sample later
        self.countdown = FIRST_INTERVAL if clean is None else 1
        if not clean:  # it compiled or raised: not a steady-state time; time it again
            return
        self.pending.remove(path)
        self.times[path].append(seconds)
        self.signatures.add(sig)
        if self._decisive():
            self.pending = []
        if not self.pending and self._unsettled():
            self.pending = ["compiled", "plain"]  # one more round each
        elif not self.pending:
            self._decide()

    def _decisive(self) -> bool:
        """Compiled DECISIVE times faster than two plain calls of LONG seconds each, at one
        size: more rounds cannot change the choice, and each costs a plain call (a 140 ms DP
        at 100x). Not one plain call: preempted on a loaded machine (14 ms against 1.5 ms), it
        chose compiled for good, and a compiled choice times only the compiled path after."""
        compiled, plain = self.times["compiled"] or [float("inf")], self.times["plain"]
        slow = len(plain) >= 2 and LONG <= min(plain) > DECISIVE * min(compiled)
        return len(self.signatures) == 1 and slow

    def _unsettled(self) -> bool:
        """Whether the comparison is close and cheap enough to deserve another round."""
        compiled, plain = self.times["compiled"], self.times["plain"]
        rounds, spent = len(compiled), sum(compiled) + sum(plain)
        best = (min(compiled), min(plain))
        close = max(best) < CLOSE * min(best)
        return close and rounds < MAX_ROUNDS and spent < SAMPLE_BUDGET

    def _decide(self) -> None:
        """Plain when its best beats the compiled best by the margin, at one size; over
        several sizes only when every compiled sample loses to every plain one (a region in a
        Python loop that is handed a growing list: the size is not what its time follows)."""
        compiled_s, plain_s = min(self.times["compiled"]), min(self.times["plain"])
        loses_always = compiled_s > max(self.times["plain"]) * self.margin
        same_sizes = len(self.signatures) == 1 or loses_always
        plain = same_sizes and compiled_s > plain_s * self.margin
        rounds = len(self.times["compiled"])
        choice = Choice(plain, compiled_s, plain_s, next(iter(self.signatures)), rounds)
        changed = self.choice is None or self.choice.plain != plain
        self.choice, self.plain = choice, plain
        self.confirm = not plain and len(self.times["plain"]) < ROUNDS
        self._schedule()
        if changed and self.on_choice is not None:
            self.on_choice(self, choice)

    def _check(self, path: str, seconds: float, clean: bool | None, sig: tuple) -> None:
        """A steady-state sample: reopen the comparison if the argument sizes moved, or if the
        chosen path ran twice in a row far slower than its best (the work depends on more than
        sizes) and than the other's best (a cold call, 1.7 ms against 0.1 ms, plain 12 ms, is no
        change; one call preempted on a loaded machine is none either: sample the next)."""
        choice = self.choice
        if path == "plain" and self.confirm and not choice.plain:
            return self._confirmed(seconds, clean, sig)
        best, other = (choice.plain_s, choice.compiled_s)[:: 1 if path == "plain" else -1]
        drifted = clean and seconds > best * DRIFT and seconds > other
        if (clean and sig != choice.signature) or (drifted and self.doubted):
            self._open()
        elif drifted:
            self.doubted, self.countdown = True, 1
        else:
            self.doubted = False  # confirmed (or not a clean sample): wait twice as long
            self._schedule()

    def _confirmed(self, seconds: float, clean: bool | None, sig: tuple) -> None:
        """Compare again unless plain is still DECISIVE times slower at the same sizes."""
        if not clean:  # it compiled or waited: the next sample confirms
            return self._schedule(longer=False)
        self.confirm = False
        if sig != self.choice.signature or seconds <= DECISIVE * self.choice.compiled_s:
            return self._open()
        self._schedule()

    def _schedule(self, longer: bool = True) -> None:
        """The next sample; its wait doubles unless a due sample only waits (``_not_now``)."""
        growth = 2 if longer else 1
        if self.switch is not None and self.switch.settle(self.plain):
            self.countdown = NEVER  # until woken: calls do not reach the counter meanwhile
            resample.resampler.schedule(self, self.delay)
            self.delay = min(self.delay * growth, MAX_DELAY)
            return
        self.countdown = self.interval + random.randrange(self.interval // 2 + 1)
        self.interval = min(self.interval * growth, MAX_INTERVAL)

    def wake(self) -> None:
        """A sample is due: the next call is measured (``jit/resample.py``)."""
        with self.lock:
            if self.countdown == NEVER and self.switch is not None:
                self.countdown = 1
                self.switch.run_measured()

    def reset(self) -> None:
        self.countdown, self.plain, self.choice, self.pending = WARMUP_CALLS, False, None, []
        self.interval, self.delay, self.postponed = FIRST_INTERVAL, FIRST_DELAY, 0
        if self.switch is not None:
            self.switch.run_measured()


NEVER = 1 << 62  # a countdown that does not run out: the function is not measured


def for_function(owner: Measured) -> Tier:
    """The tier of a compiled function; it logs each choice on the perf_hints channel."""
    return Tier(owner.name, on_choice=_log_choice(owner), switch=owner)


def applies(owner: Measured) -> bool:
    """Whether measuring may choose the plain path: not when ``config.tiering`` is off, not for
    the eager backend (the debugging rung runs graphs on purpose), nor for generators and
    coroutines (a call returns at once)."""
    fn = owner.fn
    code = getattr(fn, "__code__", None)
    lazy = code is not None and code.co_flags & _LAZY
    return config.tiering and not lazy and owner.target_name() != "eager"


def _log_choice(owner: Measured) -> Callable[[Tier, Choice], None]:
    def log(tier: Tier, choice: Choice) -> None:
        code = getattr(owner.fn, "__code__", None)
        where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
        logs.perf_hints.info("%s%s %s", owner.name, where, choice.describe())

    return log


def _timed(
    name: str, path: str, run: Callable, args: tuple, kwargs: dict
) -> tuple[Any, float, bool | None]:
    """``run(*args, **kwargs)`` with its duration, and whether that time is a clean sample:
    True when nothing compiled meanwhile, False when something did, None when it only waited
    for compiled code (``timing.waits``). An exception propagates: the call is the user's. A
    region sampled inside a sampled function call restores the function's path when done."""
    global timing_path, timing_name
    events, waits = timing.events, timing.waits
    outer = timing_path, timing_name
    timing_path, timing_name = path, name
    try:
        start = clock()
        result = run(*args, **kwargs)
        seconds = clock() - start
    finally:
        timing_path, timing_name = outer
    if timing.events != events:
        return result, seconds, False
    return result, seconds, None if timing.waits != waits else True
