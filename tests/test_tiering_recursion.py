"""Tiering and recursion (jit/tiering.py): a recursive or self-calling function is measured
whole, from a call of the program, never from inside its own recursion."""

from __future__ import annotations

import math
import types

import pytest
import tiering_clock
from tiering_clock import calls_until_choice

import astcompile
from astcompile.jit import resample, routes, tiering
from astcompile.jit.function import CompiledFunction


@pytest.fixture
def clock(monkeypatch):
    return tiering_clock.install(monkeypatch)


@astcompile.compile(backend="c")
def recursive_sum(n):
    if n < 2:
        return 1.0
    half = n * 0.5  # a region: measuring has a compiled path to compare
    return half + recursive_sum(n - 1)


def plain_recursive_sum(n):
    return 1.0 if n < 2 else n * 0.5 + plain_recursive_sum(n - 1)


def test_a_recursive_function_is_sampled_whole(clock):
    """Its calls of itself run inside a sampled call: they are part of that sample, on the
    same path, not samples of other sizes that would keep the comparison from ever choosing
    (a recursive function ran 100x slower than plain, measured forever)."""
    for _ in range(calls_until_choice()):
        assert recursive_sum(12) == plain_recursive_sum(12)
    tier = recursive_sum._tier
    assert tier.choice is not None and tier.plain
    assert tier.choice.signature == tiering.signature((12,), {})
    assert recursive_sum(30) == plain_recursive_sum(30)


@astcompile.compile(backend="c")
def count_leaves(n, at_leaf):
    if n == 0:
        at_leaf()
        return 1
    return count_leaves(n - 1, at_leaf) + count_leaves(n - 1, at_leaf)


def _nothing():
    return None


def _sampled_signatures(monkeypatch, f: CompiledFunction) -> list:
    """The argument sizes of every call measuring sees as a sample of ``f``."""
    seen: list = []
    sign = f._tier.sign

    def recorded(args, kwargs):
        seen.append(sign(args, kwargs))
        return seen[-1]

    monkeypatch.setattr(f._tier, "sign", recorded)
    return seen


def test_recursion_on_the_compiled_path_is_neither_counted_nor_sampled(clock, monkeypatch):
    """Calls of itself from its compiled path run that path directly: the counter that picks
    the next sample counts the program's own calls only, so samples time them whole (a nested
    call sampled with its own size reopened the comparison, which then never chose plain)."""
    clock.costs = {"compiled": 1e-6, "plain": 10e-6}
    count_leaves.reset()
    seen = _sampled_signatures(monkeypatch, count_leaves)
    for _ in range(300):  # 300 calls of 63 calls each: samples are due many times over
        assert count_leaves(5, _nothing) == 32
    assert count_leaves._tier.choice is not None and not count_leaves._tier.plain
    assert set(seen) == {tiering.signature((5, _nothing), {})}
    assert len(seen) < 2 * tiering.ROUNDS + 10  # the comparison, then a few checks


def test_a_sampled_plain_call_runs_its_recursion_unmeasured(clock, monkeypatch):
    """While the plain path is timed, the function's calls of itself reach the user's function
    directly, as they do once plain is chosen: the sample times what plain costs."""
    count_leaves.reset()
    sampled = []
    through = CompiledFunction._sampled_call

    def counted(self, args, kwargs):
        sampled.append(args[0])
        return through(self, args, kwargs)

    monkeypatch.setattr(CompiledFunction, "_sampled_call", counted)
    for _ in range(calls_until_choice()):
        assert count_leaves(5, _nothing) == 32
    assert count_leaves._tier.plain
    assert sampled == [5] * (calls_until_choice() - tiering.WARMUP_CALLS + 1)


def test_a_sample_due_inside_a_recursion_waits_for_a_call_of_the_program(clock, monkeypatch, runs):
    """The resampler wakes a plain-running function in the middle of a recursion. Through a
    class, the next call is one of its calls of itself, which is no sample (its size is not
    the program's): it goes back to plain and waits for the next wake, its choice unchanged.
    Through its route, its calls of itself run its twin and never reach it: the sample is the
    program's next call."""
    f = _as_decorated(count_leaves.fn)
    for _ in range(calls_until_choice()):
        f(5, _nothing)
    tier = f._tier
    choice, delay = tier.choice, tier.delay
    assert tier.plain and resample.resampler.pending() == 1
    seen = _sampled_signatures(monkeypatch, f)
    wake_once = [lambda: resample.resampler.run_due(math.inf)]
    assert f(5, lambda: wake_once and wake_once.pop()()) == 32
    assert seen == [] and tier.choice is choice and not tier.pending
    assert f(5, _nothing) == 32
    routed = hasattr(f, "current_route")
    assert seen == ([tiering.signature((5, _nothing), {})] if routed else [])
    assert tier.plain and tier.choice.plain and resample.resampler.pending() == 1
    assert tier.delay == (min(2 * delay, tiering.MAX_DELAY) if routed else delay)


def total(xs):
    if not xs:
        return 0
    return xs[0] + total(xs[1:])


def relay(n):
    if n < 1:
        return 0
    return _step(n)


def _step(n):
    return n + 1


def _as_decorated(fn):
    """``fn`` compiled as ``@astcompile.compile`` leaves it: its name means the compiled one."""
    namespace = dict(fn.__globals__)
    clone = types.FunctionType(fn.__code__, namespace, fn.__name__)
    namespace[fn.__name__] = compiled = astcompile.compile(clone, backend="c")
    return compiled


def test_a_function_without_regions_calling_only_itself_runs_plain_at_once(clock, runs):
    """Its rewrite is its own statements with our frames around each call of itself: nothing
    compiled to win, so after the first call (which finds that out) it is the user's function,
    with no sample to take (a compiled sample of a recursion took 15-100x the plain call)."""
    f = _as_decorated(total)
    assert f([1, 2, 3]) == 6
    assert runs(f) in (f.fn, routes.plain_twin(f)) and f._tier.countdown == tiering.NEVER
    assert f([4, 5]) == 9 and f._tier.choice is None and resample.resampler.pending() == 0


def test_a_function_without_regions_calling_others_is_measured(clock, runs):
    """The functions it calls are compiled on its compiled path: that path may win."""
    f = _as_decorated(relay)
    assert f(3) == 4
    assert runs(f) is CompiledFunction.__call__


def test_a_plain_sample_leaves_a_choice_made_meanwhile_in_place(clock, runs):
    """Another thread may decide while a plain sample runs (and hold the tier's lock, so the
    sample is not recorded): the sample's end does not undo the path that decision settled
    on (measuring with no countdown left would run the compiled path until the next wake)."""
    f = _as_decorated(count_leaves.fn)
    tier = f._tier
    for _ in range(calls_until_choice()):
        f(1, _nothing)
    assert tier.plain and resample.resampler.run_due(math.inf) == 1  # a plain sample is due

    def decided_elsewhere():
        if tier.lock.acquire(blocking=False):
            tier.countdown = tiering.NEVER
            f.settle(True)

    try:
        assert f(2, decided_elsewhere) == 4
    finally:
        tier.lock.release()
    assert runs(f) in (f.fn, routes.plain_twin(f))  # the user's function, or its twin
