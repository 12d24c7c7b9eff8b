"""Measure, then choose, per region (jit/region_tiering.py): a small region called from a Python
loop runs its statements when that is faster, while a big region of the same function stays
compiled. The clock is a test clock (each sampled call "takes" the time the test assigns to
its tier and path): nothing here is decided by real timing."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest

import astcompile
from astcompile.jit import region_tiering, resample, tiering


class TierClock:
    """Each read advances by the cost of what is being timed: a region's path or the
    function's. Two reads make one sample."""

    def __init__(self) -> None:
        self.region = {"compiled": 10e-6, "plain": 1e-6}  # the small region: slower compiled
        self.function = {"compiled": 1e-6, "plain": 10e-6}  # the function: faster compiled
        self.now = 0.0

    def __call__(self) -> float:
        name = tiering.timing_name or ""
        costs = self.region if "__ac_region" in name else self.function
        self.now += costs[tiering.timing_path]
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = TierClock()
    monkeypatch.setattr(astcompile.config, "tiering", True)
    monkeypatch.setattr(tiering, "clock", fake)
    monkeypatch.setattr(tiering.random, "randrange", lambda n: 0)
    monkeypatch.setattr(resample, "resampler", resample.Resampler(threaded=False))
    return fake


def walk(x, steps):
    y = x * 2.0 + 1.0
    total = 0.0
    for i in range(steps):
        total = total + y[i : i + 2].sum() * 0.5  # O(1) work, but not scalars only
        astcompile.graph_break()  # keeps the loop in Python
    return y, total


def _loop_region(f):
    (region,) = [r for r in f._live_regions if region_tiering.enclosing_loop(r) is not None]
    return region


def test_small_region_in_a_loop_runs_plain(clock):
    f = astcompile.compile(walk, backend="c")
    x = np.arange(16.0)
    for _ in range(3):
        y, total = f(x, 12)
        np.testing.assert_array_equal(y, walk(x, 12)[0])
        assert total == walk(x, 12)[1]
    region = _loop_region(f)
    assert region.tier.choice.plain and type(region).__call__ is region.body
    counted = region.stats.compiled_calls + region.stats.eager_calls
    assert f(x, 12)[1] == walk(x, 12)[1]
    assert region.stats.compiled_calls + region.stats.eager_calls == counted  # its body ran


def test_the_other_region_stays_compiled(clock):
    f = astcompile.compile(walk, backend="c")
    x = np.arange(16.0)
    for _ in range(12):
        f(x, 12)
    (first,) = [r for r in f._live_regions if r.spec.first_line == walk.__code__.co_firstlineno + 1]
    assert first.stats.compiled_calls > 0
    assert first.tier.countdown == tiering.NEVER  # outside the loop: measured with the function
    assert type(first) is first.tier.switch.compiled
    assert _loop_region(f).tier.choice.plain
    assert not f._tier.plain  # the function as a whole is faster compiled


def test_region_faster_compiled_stays_compiled(clock):
    clock.region = {"compiled": 1e-6, "plain": 10e-6}
    f = astcompile.compile(walk, backend="c")
    x = np.arange(16.0)
    f(x, 12)
    region = _loop_region(f)
    assert region.tier.choice is not None and not region.tier.choice.plain
    assert type(region) is region.tier.switch.compiled  # its own class, its own call
    before = region.stats.compiled_calls + region.stats.eager_calls
    f(x, 12)
    assert region.stats.compiled_calls + region.stats.eager_calls == before + 12


def median_log(a, steps):
    total = 0.0
    for i in range(steps):
        m = np.median(a)  # the same array at every iteration
        total += m * 0.5 + i
        if i % 4 == 3:
            print(i, total)  # keeps the loop in Python (GB012)
    return total


def test_a_median_of_a_fixed_array_in_a_python_loop_is_measured_and_runs_plain(clock, capsys):
    """The region of ``np.median(a)`` and its scalar arithmetic, called once per iteration of
    a loop a print keeps in Python, is measured like any region there (not taken for the
    function's own work): slower compiled, it runs its statements."""
    f = astcompile.compile(median_log, backend="c")
    a = np.random.default_rng(0).random(101)
    for _ in range(3):
        assert f(a, 12) == median_log(a, 12)
    assert capsys.readouterr().out.count("\n") == 6 * 3  # each call printed as written
    first = median_log.__code__.co_firstlineno + 3
    (region,) = [r for r in f._live_regions if r.spec.first_line == first]
    assert region_tiering.enclosing_loop(region) == first - 1
    assert region.tier.choice.plain and type(region).__call__ is region.body
    assert f(a, 12) == median_log(a, 12)


def grow(x, steps):
    y = x * 2.0 + 1.0
    seen = []
    total = 0.0
    for i in range(steps):
        total = total + y[i : i + 2].sum() * 0.5 + len(seen)  # handed a list growing each pass
        astcompile.graph_break()
        seen.append(i)
    return y, total


def test_a_region_slower_at_every_size_runs_plain(clock):
    """Each sample sees another list length (another size), yet every compiled sample loses
    to every plain one: plain (before, changing sizes kept it compiled, 8x slower, in
    bench.programs.factorize_trial)."""
    f = astcompile.compile(grow, backend="c")
    x = np.arange(64.0)
    for _ in range(3):
        assert f(x, 40)[1] == grow(x, 40)[1]
    first = grow.__code__.co_firstlineno + 5
    (region,) = [r for r in f._live_regions if r.spec.first_line == first]
    assert len(region.tier.signatures) > 1
    assert region.tier.choice.plain and type(region).__call__ is region.body


def test_a_region_whose_plain_time_follows_the_size_stays_compiled():
    """Sizes change and one plain sample is slower than the compiled best: no plain choice."""
    tier = tiering.Tier("spread", margin=region_tiering.MARGIN)
    tier.times = {"compiled": [10e-6] * 3, "plain": [1e-6, 100e-6, 1e-6]}
    tier.signatures = {("a",), ("b",)}
    tier._decide()
    assert not tier.choice.plain
    tier.times["plain"][1] = 2e-6  # every plain sample beats every compiled one
    tier._decide()
    assert tier.choice.plain


def test_a_due_sample_reopens_when_array_sizes_change(clock):
    f = astcompile.compile(walk, backend="c")
    f(np.arange(16.0), 12)
    region = _loop_region(f)
    assert region.tier.choice.plain
    clock.region = {"compiled": 1e-6, "plain": 10e-6}
    resample.resampler.run_due(math.inf)
    big = np.arange(float(1 << 12))
    y, total = f(big, 12)
    np.testing.assert_array_equal(y, walk(big, 12)[0])
    assert total == walk(big, 12)[1]
    assert region.tier.choice is not None and not region.tier.choice.plain


def test_region_choice_is_a_perf_hint_and_in_explain(clock, caplog):
    f = astcompile.compile(walk, backend="c")
    x = np.arange(16.0)
    with caplog.at_level(logging.INFO, logger="astcompile.perf_hints"):
        f(x, 12)
    hints = [r.getMessage() for r in caplog.records if r.name == "astcompile.perf_hints"]
    first = walk.__code__.co_firstlineno
    loop = f"from the loop at line {first + 3}"
    (hint,) = [h for h in hints if loop in h]
    assert f"region at lines {first + 4}–{first + 4} runs plain" in hint
    assert "compiled call 10.0 µs vs 1.0 µs plain" in hint
    text = str(astcompile.explain(f, x, 12))
    assert f"called 12 times {loop}" in text and "runs plain (its statements as written)" in text


def test_regions_are_not_measured_with_tiering_off(clock, monkeypatch):
    monkeypatch.setattr(astcompile.config, "tiering", False)
    f = astcompile.compile(walk, backend="c")
    f(np.arange(16.0), 12)
    region = _loop_region(f)
    assert region.tier.choice is None and region.tier.countdown == tiering.NEVER


def test_reset_drops_region_choices(clock):
    f = astcompile.compile(walk, backend="c")
    f(np.arange(16.0), 12)
    f.reset()
    assert f._live_regions == [] and f(np.arange(16.0), 12)[1] == walk(np.arange(16.0), 12)[1]


def test_function_waits_for_its_loop_regions_to_settle(clock):
    f = astcompile.compile(walk, backend="c")
    x = np.arange(16.0)
    f(x, 1)  # one iteration: the loop region has counted one call, not decided
    region = _loop_region(f)
    assert region.tier.choice is None
    for _ in range(region_tiering.SETTLE_CALLS):
        assert region_tiering.settling(f._live_regions, f._tier)
    assert not region_tiering.settling(f._live_regions, f._tier)  # it waited long enough


def test_a_region_that_changes_its_choice_reopens_the_function(clock):
    f = astcompile.compile(walk, backend="c")
    x = np.arange(16.0)
    for _ in range(12):
        f(x, 12)
    assert f._tier.choice is not None and not f._tier.pending
    region = _loop_region(f)
    clock.region = {"compiled": 0.1e-6, "plain": 1e-6}  # its compiled path got 100x cheaper
    region.tier.reopen()
    f(x, 12)
    assert not region.tier.choice.plain
    assert f._tier.pending  # the function compares its paths again


def test_a_region_about_even_stays_compiled(clock):
    clock.region = {"compiled": 1.2e-6, "plain": 1e-6}  # within the region margin
    f = astcompile.compile(walk, backend="c")
    f(np.arange(64.0), 2 * tiering.MAX_ROUNDS + 8)  # a close comparison takes more rounds
    assert not _loop_region(f).tier.choice.plain


def nested_loops(x, n):
    total = x * 0.0
    for i in range(n):
        y = x * 2.0
        print(i)  # a break: the loop runs in Python
        j = 0
        while j < 2:
            if j == 1:
                total = total + y * j
            print(j)
            j += 1
        total = total + 1.0
    done = total * 3.0
    return done


def loop_in_a_region(x, n):
    s = x * 0.0
    for i in range(n):
        s = s + x * i  # the whole loop is one region: nothing around it
    print(n)
    return s * 2.0


def region_ends_the_loop(x, n):
    for i in range(n):
        print(i)
        x = x * 2.0
        x = x + 1.0
        # the rewrite leaves blank lines here, where the region's lines were
    return x


@pytest.mark.parametrize("fn", [nested_loops, loop_in_a_region, region_ends_the_loop])
def test_the_loop_around_a_region_is_the_one_in_the_users_source(fn):
    """Read from the rewrite (a warm process reads no file), the loop around each region is the
    innermost loop of the user's source around its first line."""
    import ast
    import inspect
    import textwrap

    compiled = astcompile.compile(fn, backend="eager")
    compiled(np.ones(3), 3)
    lines, start = inspect.getsourcelines(fn)
    loops = [
        (node.lineno + start - 1, node.end_lineno + start - 1)
        for node in ast.walk(ast.parse(textwrap.dedent("".join(lines))))
        if isinstance(node, (ast.For, ast.While))
    ]
    assert compiled.regions
    for region in compiled.regions:
        around = [loop for loop in loops if loop[0] < region.spec.first_line <= loop[1]]
        expected = max(around)[0] if around else None
        assert region_tiering.enclosing_loop(region) == expected, region.spec.name
    assert any(region_tiering.enclosing_loop(r) for r in compiled.regions) == (
        fn is not loop_in_a_region
    )
