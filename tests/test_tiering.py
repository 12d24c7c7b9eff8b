"""Measure, then choose (jit/tiering.py): a function slower compiled runs plain, never wrongly.

The clock is a test clock: each sampled call "takes" the time the test assigns to its path, so
these tests decide nothing by real timing.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import numpy as np
import pytest
import tiering_clock
from tiering_clock import axpy, axpy_args, calls_until_choice

import astcompile
from astcompile.jit import resample, tiering
from astcompile.jit.function import CompiledFunction
from astcompile.runtime import timing


@pytest.fixture
def clock(monkeypatch):
    return tiering_clock.install(monkeypatch)


def test_slower_compiled_function_runs_plain(clock):
    f = astcompile.compile(axpy, backend="c")
    args = axpy_args()
    for _ in range(calls_until_choice()):
        np.testing.assert_array_equal(f(*args), axpy(*args))
    assert f._tier.choice is not None and f._tier.plain
    compiled_before = f.regions[0].stats.compiled_calls
    for _ in range(5):
        np.testing.assert_array_equal(f(*args), axpy(*args))
    assert f.regions[0].stats.compiled_calls == compiled_before  # the user's code ran


def test_faster_compiled_function_stays_compiled(clock):
    clock.costs = {"compiled": 1e-6, "plain": 10e-6}
    f = astcompile.compile(axpy, backend="c")
    args = axpy_args()
    for _ in range(calls_until_choice() + 5):
        f(*args)
    assert f._tier.choice is not None and not f._tier.plain


def test_plain_choice_needs_clearly_faster_plain(clock):
    clock.costs = {"compiled": 1.01e-6, "plain": 1e-6}  # within the noise margin
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        f(*axpy_args())
    assert not f._tier.plain


def test_mixed_sizes_stay_compiled(clock):
    """Plain wins at the small size, loses at the big one: no choice for plain."""
    f = astcompile.compile(axpy, backend="c")
    for k in range(calls_until_choice()):
        clock.costs = {"compiled": 10e-6, "plain": 1e-6 if k % 2 else 1e-3}
        f(*axpy_args(8 if k % 2 else 100_000))
    assert f._tier.choice is not None and not f._tier.plain


def test_new_sizes_reopen_a_plain_choice(clock):
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        f(*axpy_args())
    assert f._tier.plain
    clock.costs = {"compiled": 1e-6, "plain": 50e-6}  # big arrays: compiled wins now
    big = axpy_args(1 << 16)
    assert resample.resampler.run_due(math.inf) == 1  # the plain path's sample is due
    for _ in range(1 + 2 * tiering.ROUNDS):
        np.testing.assert_array_equal(f(*big), axpy(*big))
    assert not f._tier.plain


def test_sample_that_compiles_is_not_counted(clock):
    f = astcompile.compile(axpy, backend="c")
    f(*axpy_args())
    f._tier.countdown = 1
    events = timing.events
    f(*axpy_args())  # the first timed call: compiled already, so a clean sample
    assert timing.events == events
    tier = f._tier
    tier._open()
    timing.events += 1  # as if this call compiled something
    tier._record("compiled", 1.0, timing.events == events, ())
    assert len(tier.times["compiled"]) == 0 and tier.pending.count("compiled") == tiering.ROUNDS


def test_sample_that_waited_for_compiled_code_is_not_counted_nor_taken_again_at_once():
    """A sample whose regions ran their statements while their compiled code was put off is
    no time of either path; the calls after it wait the same way, so the next sample comes an
    interval later (each call a sample, with its overhead, made the waiting 5x slower), or as
    soon as the compiled path changes (a build landed)."""
    _, _, clean = tiering._timed("f", "compiled", timing.waited, (), {})
    assert clean is None
    tier = tiering.Tier("f")
    tier._open()
    tier._record("compiled", 1.0, clean, ())
    assert tier.times["compiled"] == [] and tier.pending.count("compiled") == tiering.ROUNDS
    assert tier.countdown == tiering.FIRST_INTERVAL
    tier.reopen()
    assert tier.countdown == 1


def test_in_place_updates_and_exceptions_are_the_same_on_both_paths(clock):
    def scale(x, k):
        if k == 0:
            raise ValueError("k must not be 0")
        x *= k
        return x.sum()

    f = astcompile.compile(scale, backend="c")
    for _ in range(calls_until_choice() + 3):
        x, y = np.arange(6.0), np.arange(6.0)
        assert f(x, 3.0) == scale(y, 3.0)
        np.testing.assert_array_equal(x, y)
    assert f._tier.plain
    with pytest.raises(ValueError, match="k must not be 0"):
        f(np.arange(3.0), 0)


def test_eager_backend_is_never_replaced(clock):
    f = astcompile.compile(axpy, backend="eager")
    for _ in range(calls_until_choice() + 3):
        f(*axpy_args())
    assert f._tier.choice is None and not f._tier.plain


def test_choice_is_logged_as_a_perf_hint(clock, caplog):
    f = astcompile.compile(axpy, backend="c")
    with caplog.at_level(logging.INFO, logger="astcompile.perf_hints"):
        for _ in range(calls_until_choice()):
            f(*axpy_args())
    (message,) = [r.getMessage() for r in caplog.records if r.name == "astcompile.perf_hints"]
    assert "axpy" in message and "tiering_clock.py:" in message
    assert "runs plain" in message and "10.0 µs vs 1.0 µs plain" in message


def test_explain_reports_the_choice(clock):
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        f(*axpy_args())
    report = str(astcompile.explain(f, *axpy_args()))
    assert "runs plain" in report and "10.0 µs" in report


def test_reset_forgets_the_choice(clock):
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        f(*axpy_args())
    f.reset()
    assert f._tier.choice is None and not f._tier.plain


def test_tiering_off_keeps_the_compiled_path(clock, monkeypatch):
    monkeypatch.setattr(astcompile.config, "tiering", False)
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice() + 3):
        f(*axpy_args())
    assert f._tier.choice is None and not f._tier.plain


def test_compiled_path_changing_mid_comparison_starts_it_over(clock):
    """A slow start: the first compiled samples time a slower compiled path (the C call path
    still building), then it lands before the comparison ends. Kept, those samples chose plain,
    and plain was never measured against compiled again; the comparison starts over instead."""
    f = astcompile.compile(axpy, backend="c")
    args = axpy_args()
    clock.costs = {"compiled": 10e-6, "plain": 1e-6}
    for _ in range(calls_until_choice() - 1):  # every compiled sample, not the last plain one
        f(*args)
    assert f._tier.choice is None and f._tier.pending == ["plain"]
    clock.costs = {"compiled": 1e-7, "plain": 1e-6}  # the fast path is in
    f.compare_again()
    for _ in range(2 * tiering.ROUNDS):
        f(*args)
    assert f._tier.choice is not None and not f._tier.plain
    assert max(f._tier.times["compiled"]) == pytest.approx(1e-7)  # no sample of the old path


def _call_timed_by(read: Callable[[], float], f: CompiledFunction, args: tuple) -> None:
    """``f(*args)`` with the tier's clock ``read`` (which may act as another thread would)."""
    clock_before, tiering.clock = tiering.clock, read
    try:
        f(*args)
    finally:
        tiering.clock = clock_before


def _comparing_axpy() -> tuple[CompiledFunction, tuple, tiering.Tier]:
    """axpy compiled and called once, a comparison opened: the next call is its first sample."""
    f = astcompile.compile(axpy, backend="c")
    args = axpy_args()
    f(*args)
    f._tier._open()
    return f, args, f._tier


def test_a_sample_timed_across_a_reopen_is_dropped(clock):
    f, args, tier = _comparing_axpy()
    reads = []

    def reopening_clock() -> float:  # the build lands on another thread during the sample
        reads.append(1)
        if len(reads) == 2:
            tier.reopen()
        return float(len(reads))

    _call_timed_by(reopening_clock, f, args)
    assert tier.times == {"compiled": [], "plain": []} and len(tier.pending) == 2 * tiering.ROUNDS


def test_a_build_that_lands_mid_comparison_keeps_its_plain_samples(clock):
    """Only the compiled path changed: the plain samples stand and the comparison takes the
    compiled ones again (a function whose builds kept landing, a new kind of argument every
    few calls, dropped them at each and never finished comparing)."""
    f, args, tier = _comparing_axpy()
    for _ in range(4):  # two samples of each path
        f(*args)
    plain = list(tier.times["plain"])
    assert len(plain) == 2 and len(tier.times["compiled"]) == 2
    f.compare_again()
    assert tier.times == {"compiled": [], "plain": plain}
    assert tier.pending.count("compiled") == tiering.ROUNDS
    assert tier.pending.count("plain") == tiering.ROUNDS - 2
    for _ in range(tiering.ROUNDS + 1):
        f(*args)
    assert tier.choice is not None and tier.plain  # plain is 10x faster on the fake clock


def test_a_compiled_choice_that_only_got_cheaper_takes_no_plain_samples(clock):
    """The C call path coming in makes compiled calls cheaper: a compiled choice stands (each
    plain sample of a reopened comparison costs a call as slow as the function as written);
    a plain choice is compared again."""
    clock.costs = {"compiled": 1e-6, "plain": 10e-6}
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        f(*axpy_args())
    assert f._tier.choice is not None and not f._tier.plain
    f.compare_again(cheaper=True)
    assert not f._tier.pending
    clock.costs = {"compiled": 10e-6, "plain": 1e-6}
    g = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        g(*axpy_args())
    assert g._tier.plain
    g.compare_again(cheaper=True)
    assert g._tier.pending


def test_a_slow_sample_reopens_only_where_the_other_path_could_win(clock):
    """A compiled call far off its best after a pause (cold caches) but still far below plain's
    best changes nothing: reopening would run three plain calls for the same choice."""
    clock.costs = {"compiled": 1e-6, "plain": 100e-6}
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        f(*axpy_args())
    tier = f._tier
    assert tier.choice is not None and not tier.plain
    clock.costs = {"compiled": 20e-6, "plain": 100e-6}  # 20x its best, 5x faster than plain
    tier.countdown = 1
    f(*axpy_args())
    assert not tier.pending
    clock.costs = {"compiled": 200e-6, "plain": 100e-6}  # slower than plain was: compare
    tier.countdown = 1
    f(*axpy_args())
    assert not tier.pending and tier.countdown == 1  # once could be a preempted call
    f(*axpy_args())
    assert tier.pending  # twice in a row: compare again


def test_a_sample_timed_across_a_finished_comparison_leaves_its_schedule(clock):
    """A sample runs across a reopen and the whole comparison after it (other threads' calls):
    it is dropped, and leaves the choice's schedule as it is. It set the countdown to 1 over
    the plain choice's NEVER, and the resampler's wake (which acts on NEVER only) never put the
    function back to measuring: plain for good, new sizes unseen."""
    f, args, tier = _comparing_axpy()
    reads = []

    def racing_clock() -> float:  # the sample's end: a build landed, others' calls chose plain
        reads.append(tiering.timing_name)
        if reads == ["axpy", "axpy"]:
            tier.reopen()
            with tier.lock:
                tier.pending, tier.signatures = [], {tier.sign(args, {})}
                tier.times = {"compiled": [10e-6] * 3, "plain": [1e-6] * 3}
                tier._decide()
        return float(len(reads))

    _call_timed_by(racing_clock, f, args)
    assert tier.plain and tier.countdown == tiering.NEVER
    assert resample.resampler.run_due(math.inf) == 1
    f(*axpy_args(4096))  # the woken sample sees new sizes: compare again
    assert tier.pending


def _plain_axpy_woken(clock) -> tuple[CompiledFunction, tiering.Tier]:
    """axpy settled on plain at the clock's costs, its next sample due."""
    f = astcompile.compile(axpy, backend="c")
    for _ in range(tiering.WARMUP_CALLS + 2 * tiering.MAX_ROUNDS):  # close: more rounds
        f(*axpy_args())
    assert f._tier.plain and resample.resampler.run_due(math.inf) == 1
    return f, f._tier


def test_a_close_plain_choice_confirmed_within_noise_waits_longer_each_time(clock, runs):
    """Samples of a close choice (plain 1.0 µs, compiled 1.05 µs) that land within noise of
    the plain path's best never compare again: each one doubles the wait, up to MAX_DELAY."""
    clock.costs = {"compiled": 1.05e-6, "plain": 1e-6}
    f, tier = _plain_axpy_woken(clock)
    delays, opened = [], tier.opened
    for noise in [1.3, 0.9, 2.5, 1.0, 4.0, 1.1, 1.2, 1.0]:
        clock.costs["plain"] = noise * 1e-6
        delays.append(tier.delay)
        f(*axpy_args())  # the due sample
        assert runs(f) is axpy and resample.resampler.pending() == 1
        assert resample.resampler.run_due(math.inf) == 1
    assert tier.opened == opened and tier.plain
    expected = [min(delays[0] * 2**k, tiering.MAX_DELAY) for k in range(len(delays))]
    assert delays == expected and tier.delay == tiering.MAX_DELAY


def test_one_preempted_plain_sample_is_sampled_again_not_compared_again(clock, runs):
    """A sample 20x the plain best (the process lost its core for a while) makes the next
    call a sample; when that one is back near the best, the choice stands and waits longer."""
    f, tier = _plain_axpy_woken(clock)
    delay, opened = tier.delay, tier.opened
    clock.costs["plain"] = 20e-6  # 20x its best and twice compiled's best
    f(*axpy_args())
    assert tier.opened == opened and tier.countdown == 1 and runs(f) is CompiledFunction.__call__
    clock.costs["plain"] = 1e-6
    f(*axpy_args())
    assert tier.opened == opened and runs(f) is axpy and not tier.pending
    assert tier.delay == min(2 * delay, tiering.MAX_DELAY) and resample.resampler.pending() == 1


def test_a_plain_path_slow_twice_in_a_row_is_compared_again(clock, runs):
    """The work grew at the same sizes (plain now 20x its best on two samples running): a real
    change, so both paths are timed again, and the compiled path now wins."""
    f, tier = _plain_axpy_woken(clock)
    clock.costs["plain"] = 20e-6
    f(*axpy_args())
    f(*axpy_args())
    assert tier.pending and runs(f) is CompiledFunction.__call__
    for _ in range(2 * tiering.ROUNDS):
        f(*axpy_args())
    assert not tier.pending and not tier.plain and not tier.doubted
