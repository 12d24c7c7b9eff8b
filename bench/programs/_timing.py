"""Time the plain and the compiled function in the same run, interleaved round by round.

A round times ``calls`` back-to-back calls (many for a microsecond program, one for a slow
one) on inputs prepared before the clock starts: fresh copies when the program writes to its
inputs, else the same inputs every call. The per-call time of a side is its best round.
"""

from __future__ import annotations

import contextlib
import gc
import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from astcompile.jit import tiering
from bench import measure
from bench.programs._compare import fresh


@dataclass(frozen=True)
class Plan:
    rounds: int  # at least this many rounds each side
    round_seconds: float  # aim for rounds of about this long
    budget_seconds: float  # stop adding rounds past this (both sides together)


FULL = Plan(rounds=7, round_seconds=0.02, budget_seconds=4.0)
QUICK = Plan(rounds=3, round_seconds=0.005, budget_seconds=0.5)
#: A short run: the calls whose total time (compile included) the "first 10 calls" ratio compares.
FIRST_CALLS = 10


def calls_per_round(seconds_per_call: float, plan: Plan) -> int:
    return max(1, min(20000, int(plan.round_seconds / max(seconds_per_call, 1e-7))))


def interleaved(
    sides: list[Callable], args: tuple, copies: bool, plan: Plan, hint: float
) -> list[float]:
    """Seconds per call of each side (the plain function first): the best round of each, the
    sides taking turns in an order that rotates every round, so that a busy machine hurts
    all alike. ``hint`` is one plain call's time, to size the rounds; ``copies`` gives every
    call a fresh copy of ``args`` (the program writes to its inputs)."""
    calls = calls_per_round(hint, plan)
    best = [float("inf")] * len(sides)
    spent, rounds = 0.0, 0
    minimum = plan.rounds if hint < 1.0 else 2
    while rounds < minimum or (spent < plan.budget_seconds and rounds < 3 * plan.rounds):
        for side in _turns(len(sides), rounds):
            elapsed = _round(sides[side], args, calls, copies)
            best[side] = min(best[side], elapsed / calls)
            spent += elapsed
        rounds += 1
    return best


def _turns(count: int, round_number: int) -> list[int]:
    start = round_number % count
    return [(start + k) % count for k in range(count)]


def steady(compiled: Any, args: tuple, copies: bool) -> None:
    """Bring ``compiled`` to its steady state before it is timed: past what its first calls
    put off compiling (``measure.until_built``; the first ten calls' column counts that), and
    past the comparison tiering makes once the compiled code lands. Timed before, fdtd_1d ran
    as written whenever the cache was cold (0.66-1.0x, 7-15x when warm)."""

    def call() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            compiled(*(fresh(args) if copies else args))

    if measure.until_built(compiled, call):
        for _ in range(tiering.WARMUP_CALLS + 2 * tiering.ROUNDS):
            call()


def first_calls(fn: Callable, args: tuple, calls: int = FIRST_CALLS) -> float:
    """Seconds the first ``calls`` calls of ``fn`` take together, each on fresh inputs made
    before the clock starts: what a user's short run pays, a compiler's first call included."""
    return _round(fn, args, calls, copies=True)


def _round(fn: Callable, args: tuple, calls: int, copies: bool) -> float:
    inputs = [fresh(args) for _ in range(calls)] if copies else [args] * calls
    gc.collect()
    gc.disable()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            start = time.perf_counter()
            for a in inputs:
                fn(*a)
            return time.perf_counter() - start
    finally:
        gc.enable()


def timed(call: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start
