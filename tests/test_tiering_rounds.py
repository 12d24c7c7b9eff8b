"""How many rounds a comparison takes (jit/tiering.py): two where plain calls are long and far
slower than compiled ones, never one (a single preempted plain call chose compiled for good).

The clock is a test clock (tests/tiering_clock.py): no test decides anything by real timing.
"""

from __future__ import annotations

import pytest
import tiering_clock
from tiering_clock import axpy, axpy_args, calls_until_choice

import astcompile
from astcompile.jit import tiering


@pytest.fixture
def clock(monkeypatch):
    return tiering_clock.install(monkeypatch)


@pytest.mark.parametrize("plain_s, rounds", [(5e-3, 2), (5e-4, tiering.ROUNDS)])
def test_long_plain_calls_far_slower_than_compiled_decide_in_two_rounds(clock, plain_s, rounds):
    """Each plain sample costs a call as slow as the function as written: where two rounds
    show compiled calls far faster than plain ones of a millisecond or more, more rounds
    cannot change the choice (a 140 ms DP 100x faster compiled paid two more plain calls)."""
    clock.costs = {"compiled": plain_s / 50, "plain": plain_s}
    f = astcompile.compile(axpy, backend="c")
    for _ in range(tiering.WARMUP_CALLS - 1 + 2 * rounds):
        assert f._tier.choice is None
        f(*axpy_args())
    assert f._tier.choice is not None and not f._tier.plain
    assert len(f._tier.times["plain"]) == rounds


def test_one_preempted_plain_sample_does_not_decide(clock):
    """Plain 1.47 ms, compiled 1.60 ms, the first plain sample preempted to 14.4 ms on a loaded
    machine: it alone decided for compiled, for good (a compiled choice times only compiled
    calls after). The next plain sample is a true one, and the comparison runs its rounds."""
    clock.costs = {"compiled": 1.60e-3, "plain": 1.47e-3}
    clock.queue("plain", 14.4e-3)
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        assert f._tier.choice is None
        f(*axpy_args())
    assert f._tier.choice is not None and f._tier.plain
    assert f._tier.times["plain"][:2] == pytest.approx([14.4e-3, 1.47e-3])


def test_two_slow_plain_samples_decide_even_after_a_faster_compiled_one(clock):
    """Both plain samples 4x the best compiled one: decided, whatever the second compiled
    sample took (the best compiled time is what the rule compares)."""
    clock.costs = {"compiled": 1e-4, "plain": 5e-3}
    clock.queue("compiled", 1e-3)
    f = astcompile.compile(axpy, backend="c")
    for _ in range(tiering.WARMUP_CALLS - 1 + 4):
        assert f._tier.choice is None
        f(*axpy_args())
    assert f._tier.choice is not None and not f._tier.plain
    assert f._tier.times["compiled"] == pytest.approx([1e-3, 1e-4])


def test_compiled_chosen_on_two_preempted_plain_samples_is_compared_again(clock):
    """Both plain samples preempted: compiled chosen on two rounds, and the one plain sample
    it owes, when samples are MAX_INTERVAL calls apart, sees plain faster: compare again."""
    clock.costs = {"compiled": 1.60e-3, "plain": 1.47e-3}
    clock.queue("plain", 14.4e-3, 14.4e-3)
    f = astcompile.compile(axpy, backend="c")
    for _ in range(tiering.WARMUP_CALLS - 1 + 4):
        f(*axpy_args())
    assert f._tier.choice is not None and not f._tier.plain and f._tier.confirm
    calls = 0
    while not f._tier.plain and calls < 2 * tiering.MAX_INTERVAL:
        f(*axpy_args())
        calls += 1
    assert f._tier.plain and tiering.MAX_INTERVAL // 2 < calls < 2 * tiering.MAX_INTERVAL


def test_a_compiled_choice_on_two_rounds_times_plain_once_more(clock):
    """Plain really is 50x slower: the owed plain sample confirms, and no other follows (each
    costs a call as slow as the function as written)."""
    clock.costs = {"compiled": 1e-4, "plain": 5e-3}
    f = astcompile.compile(axpy, backend="c")
    for _ in range(4 * tiering.MAX_INTERVAL):
        f(*axpy_args())
    assert not f._tier.plain and not f._tier.confirm and not f._tier.pending
    assert clock.taken["plain"] == 3
