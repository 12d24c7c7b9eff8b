"""Measure, then choose, per region: a region slower compiled than its own statements runs them.

A function whose loop stays in Python (a break in its body) calls a region on every iteration;
when that region holds little work, its compiled call (guards, marshalling, boxing) costs more
than the statements it stands for, even where another region of the same function is a big win.
So each region inside such a loop is measured as a function is (``jit/tiering.py``): a burst of sampled calls
alternating its compiled call and its body (the user's statements as a plain function), then
the faster one. Both run the same statements, so the choice never changes a result.

A region moves between three classes, none of which costs a steady-state call anything:

- measuring (a subclass of the region's class): counts calls down and times the sampled ones;
- compiled: the region's own class, untouched;
- plain: a subclass whose ``__call__`` is the body itself (a staticmethod: no frame of ours).

Between samples it is compiled or plain; ``jit/resample.py`` wakes it for the next sample.
The choice is per region and argument sizes (a region called with changing sizes stays
compiled); ``explain`` and the ``perf_hints`` log say which regions run plain and why.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from astcompile import config, logs
from astcompile.jit import call_sizes, telemetry, tiering

if TYPE_CHECKING:
    from astcompile.jit.regions import Region


class Switch:
    """A region's classes, and the moves between them that its tier asks for."""

    def __init__(self, region: Region) -> None:
        self.region = region
        compiled = type(region)
        self.compiled = compiled
        self.measuring = _subclass(compiled, "measuring", {"__call__": _measuring_call})
        self.plain = _subclass(compiled, "plain", {"__call__": staticmethod(region.body)})

    def settle(self, plain: bool) -> bool:
        self.region.__class__ = self.plain if plain else self.compiled
        return True  # neither counts its calls: the resampler wakes it

    def run_measured(self) -> None:
        self.region.__class__ = self.measuring

    def run_plain(self) -> None:
        self.region.__class__ = self.plain


def _subclass(base: type, role: str, body: dict) -> type:
    cls = type(f"{base.__name__}_{role}", (base,), {"__slots__": (), **body})
    cls.__module__, cls.__qualname__ = base.__module__, base.__qualname__
    return cls


def attach(region: Region) -> Region:
    """Give ``region`` a tier, and start measuring it if a Python loop calls it: a region
    called once per call of its function is measured with the function (its own samples
    would only add plain runs of what may be the function's biggest work)."""
    switch = Switch(region)
    region.tier = tiering.Tier(  # type: ignore[attr-defined]
        f"{region.owner.name} {region.spec.name}",
        on_choice=_log_choice(region),
        switch=switch,
        sign=signature,
        margin=MARGIN,
    )
    if enclosing_loop(region) is None:
        region.tier.countdown = tiering.NEVER  # type: ignore[attr-defined]
    else:
        switch.run_measured()
    return region


def _measuring_call(region: Region, *args: Any) -> tuple:
    """``__call__`` while measuring: the region's own call, and at zero a sampled one."""
    tier = region.tier
    compiled_call = super(type(region), region).__call__
    n = tier.countdown - 1
    tier.countdown = n
    if n > 0 or telemetry.recording or config.verify:  # explain and verify see the regions
        return compiled_call(*args)
    if not applies(region):  # measured no more: its own class from now on
        tier.countdown = tiering.NEVER
        tier.switch.settle(False)
        return compiled_call(*args)
    return tier.sampled_call(compiled_call, region.body, args, {})


def signature(args: tuple, kwargs: dict) -> tuple:
    """Array and container sizes only: a region called from a loop gets the loop's changing
    scalars (an index, a running sum), which must not keep it from a choice. A scalar that
    sets the amount of work (a loop bound) shows as a sampled time far off its best, which
    reopens the comparison (``tiering.DRIFT``)."""
    return tuple(type(a) if type(a) in _SCALARS else call_sizes.size_class(a) for a in args)


_SCALARS = (int, float, bool, complex)


def applies(region: Region) -> bool:
    """As for functions (``tiering.applies``), less the generator rule: a region's body is
    always an ordinary function returning its live-out values."""
    return config.tiering and region.owner.target_name() != "eager"


#: A region runs plain only when its compiled call is this much slower: the regions this is for
#: lose several times over (guards and boxing around a few statements), while a big region that
#: is about even must not flip with the noise of a busy machine (its function is measured too).
MARGIN = 1.25

#: At most this many calls of a function wait for its regions to settle before it is timed.
SETTLE_CALLS = 32


def settling(regions: Iterable[Region], tier: tiering.Tier) -> bool:
    """Whether a function's comparison should wait: one of its regions that ran is still
    measuring (its samples would run its plain body inside the function's timed calls, and
    its choice changes what the compiled path costs). ``tier.postponed`` bounds the wait."""
    if tier.postponed >= SETTLE_CALLS:
        return False
    waiting = any(_measuring(r.tier) for r in regions)
    tier.postponed += waiting
    return waiting


def _measuring(tier: tiering.Tier) -> bool:
    """Called through its measuring class and not decided yet."""
    started = tier.countdown < tiering.WARMUP_CALLS or tier.pending
    return tier.choice is None and tier.countdown != tiering.NEVER and bool(started)


def describe(region: Region, calls: int | None = None) -> str | None:
    """What measuring chose for ``region``, in the words of ``explain`` and the log."""
    choice = region.tier.choice  # type: ignore[attr-defined]
    if choice is None:
        return None
    spec = region.spec
    where = f"region at lines {spec.first_line}–{spec.last_line} {choice.describe('its statements as written')}"
    if calls is None:  # the calls counted until now (plain calls are not counted)
        calls, so_far = region.stats.compiled_calls + region.stats.eager_calls, " so far"
    else:
        so_far = ""
    loop = enclosing_loop(region)
    origin = f" from the loop at line {loop}" if loop is not None else ""
    return f"{region.owner.name} {where}, called {calls:,} times{so_far}{origin}"


def _log_choice(region: Region) -> Any:
    def log(tier: tiering.Tier, choice: tiering.Choice) -> None:
        logs.perf_hints.info("%s", describe(region))
        region.owner.compare_again()  # its compiled path changed

    return log


def enclosing_loop(region: Region) -> int | None:
    """The line of the innermost loop of the user's function around the region: a region
    inside a loop means the loop runs in Python and calls it at every iteration."""
    loops = _loops(region.owner.rewritten_source or "")
    spec = region.spec
    inside = [(first, last) for first, last in loops if first < spec.first_line <= last]
    return max(inside)[0] if inside else None


@functools.lru_cache(maxsize=256)
def _loops(rewritten: str) -> tuple[tuple[int, int], ...]:
    """(first, last) file lines of every ``for``/``while`` loop of the rewritten function (on
    the user's lines): a loop around a region calls it, so it stays a loop there. Read from
    the rewrite, which a warm process has, not the file: ``inspect`` tokenizes the source,
    and compiling the tokenizer's expressions was a tenth of a warm first call."""
    try:
        tree = ast.parse(rewritten)
    except SyntaxError:  # pragma: no cover - the rewrite compiled already
        return ()
    return tuple(
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor))
    )
