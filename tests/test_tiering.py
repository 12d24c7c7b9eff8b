"""Measure, then choose (jit/tiering.py): a function slower compiled runs plain, never wrongly.

The clock is a test clock: each sampled call "takes" the time the test assigns to its path, so
these tests decide nothing by real timing.
"""

from __future__ import annotations

import logging
import math
import threading
import types
from collections.abc import Callable

import numpy as np
import pytest

import astcompile
from astcompile.jit import resample, routes, tiering
from astcompile.jit.function import CompiledFunction
from astcompile.runtime import timing


class FakeClock:
    """Each read advances by the cost of the path being timed: two reads make one sample."""

    def __init__(self, compiled: float, plain: float) -> None:
        self.costs = {"compiled": compiled, "plain": plain}
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.costs[tiering.timing_path]
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock(compiled=10e-6, plain=1e-6)
    monkeypatch.setattr(astcompile.config, "tiering", True)
    monkeypatch.setattr(tiering, "clock", fake)
    monkeypatch.setattr(tiering.random, "randrange", lambda n: 0)  # no jitter: exact schedule
    monkeypatch.setattr(resample, "resampler", resample.Resampler(threaded=False))
    return fake


def axpy(a, x, y):
    return a * x + y


def _args(n=8):
    rng = np.random.default_rng(0)
    return 2.0, rng.random(n), rng.random(n)


def _calls_until_choice() -> int:
    return tiering.WARMUP_CALLS - 1 + 2 * tiering.ROUNDS


def test_slower_compiled_function_runs_plain(clock):
    f = astcompile.compile(axpy, backend="c")
    args = _args()
    for _ in range(_calls_until_choice()):
        np.testing.assert_array_equal(f(*args), axpy(*args))
    assert f._tier.choice is not None and f._tier.plain
    compiled_before = f.regions[0].stats.compiled_calls
    for _ in range(5):
        np.testing.assert_array_equal(f(*args), axpy(*args))
    assert f.regions[0].stats.compiled_calls == compiled_before  # the user's code ran


def test_faster_compiled_function_stays_compiled(clock):
    clock.costs = {"compiled": 1e-6, "plain": 10e-6}
    f = astcompile.compile(axpy, backend="c")
    args = _args()
    for _ in range(_calls_until_choice() + 5):
        f(*args)
    assert f._tier.choice is not None and not f._tier.plain


def test_plain_choice_needs_clearly_faster_plain(clock):
    clock.costs = {"compiled": 1.01e-6, "plain": 1e-6}  # within the noise margin
    f = astcompile.compile(axpy, backend="c")
    for _ in range(_calls_until_choice()):
        f(*_args())
    assert not f._tier.plain


def test_mixed_sizes_stay_compiled(clock):
    """Plain wins at the small size, loses at the big one: no choice for plain."""
    f = astcompile.compile(axpy, backend="c")
    for k in range(_calls_until_choice()):
        clock.costs = {"compiled": 10e-6, "plain": 1e-6 if k % 2 else 1e-3}
        f(*_args(8 if k % 2 else 100_000))
    assert f._tier.choice is not None and not f._tier.plain


def test_new_sizes_reopen_a_plain_choice(clock):
    f = astcompile.compile(axpy, backend="c")
    for _ in range(_calls_until_choice()):
        f(*_args())
    assert f._tier.plain
    clock.costs = {"compiled": 1e-6, "plain": 50e-6}  # big arrays: compiled wins now
    big = _args(1 << 16)
    assert resample.resampler.run_due(math.inf) == 1  # the plain path's sample is due
    for _ in range(1 + 2 * tiering.ROUNDS):
        np.testing.assert_array_equal(f(*big), axpy(*big))
    assert not f._tier.plain


def test_sample_that_compiles_is_not_counted(clock):
    f = astcompile.compile(axpy, backend="c")
    f(*_args())
    f._tier.countdown = 1
    events = timing.events
    f(*_args())  # the first timed call: compiled already, so a clean sample
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
    for _ in range(_calls_until_choice() + 3):
        x, y = np.arange(6.0), np.arange(6.0)
        assert f(x, 3.0) == scale(y, 3.0)
        np.testing.assert_array_equal(x, y)
    assert f._tier.plain
    with pytest.raises(ValueError, match="k must not be 0"):
        f(np.arange(3.0), 0)


def test_eager_backend_is_never_replaced(clock):
    f = astcompile.compile(axpy, backend="eager")
    for _ in range(_calls_until_choice() + 3):
        f(*_args())
    assert f._tier.choice is None and not f._tier.plain


def test_choice_is_logged_as_a_perf_hint(clock, caplog):
    f = astcompile.compile(axpy, backend="c")
    with caplog.at_level(logging.INFO, logger="astcompile.perf_hints"):
        for _ in range(_calls_until_choice()):
            f(*_args())
    (message,) = [r.getMessage() for r in caplog.records if r.name == "astcompile.perf_hints"]
    assert "axpy" in message and "test_tiering.py" in message
    assert "runs plain" in message and "10.0 µs vs 1.0 µs plain" in message


def test_explain_reports_the_choice(clock):
    f = astcompile.compile(axpy, backend="c")
    for _ in range(_calls_until_choice()):
        f(*_args())
    report = str(astcompile.explain(f, *_args()))
    assert "runs plain" in report and "10.0 µs" in report


def test_reset_forgets_the_choice(clock):
    f = astcompile.compile(axpy, backend="c")
    for _ in range(_calls_until_choice()):
        f(*_args())
    f.reset()
    assert f._tier.choice is None and not f._tier.plain


def test_tiering_off_keeps_the_compiled_path(clock, monkeypatch):
    monkeypatch.setattr(astcompile.config, "tiering", False)
    f = astcompile.compile(axpy, backend="c")
    for _ in range(_calls_until_choice() + 3):
        f(*_args())
    assert f._tier.choice is None and not f._tier.plain


class Model:
    def __init__(self) -> None:
        self.w = np.linspace(0.0, 1.0, 8)

    @astcompile.compile
    def forward(self, x, bias=0.5):
        return x * self.w + bias


def test_methods_and_keywords_on_both_paths(clock):
    model, x = Model(), np.arange(8.0)
    want = Model.forward.__wrapped__(model, x, bias=0.25)
    for _ in range(_calls_until_choice() + 3):
        np.testing.assert_array_equal(model.forward(x, bias=0.25), want)
    assert Model.forward._tier.plain
    model.w = model.w * 2  # a read the plain path sees as it is
    np.testing.assert_array_equal(
        model.forward(x, bias=0.25), Model.forward.__wrapped__(model, x, bias=0.25)
    )


def test_concurrent_sampled_calls_never_fail(monkeypatch):
    """Threads sampling at once: every call returns the right answer, none raises."""
    import threading

    monkeypatch.setattr(astcompile.config, "tiering", True)
    f = astcompile.compile(axpy, backend="c")
    args = _args()
    want = axpy(*args)
    errors = []

    def worker():
        try:
            for _ in range(300):
                f._tier.countdown = 0  # every call a sampled one
                np.testing.assert_array_equal(f(*args), want)
        except Exception as exc:  # noqa: BLE001 - collected and reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_plain_path_calls_the_function_itself(clock, runs):
    """On the plain path nothing of ours runs: a call runs the user's function."""
    f = astcompile.compile(axpy, backend="c")
    assert runs(f) is CompiledFunction.__call__
    for _ in range(_calls_until_choice()):
        f(*_args())
    assert isinstance(f, CompiledFunction) and runs(f) is axpy
    assert type(f).__qualname__ == "CompiledFunction"
    assert repr(f) == "<astcompile compiled function axpy>" and f.__name__ == "axpy"
    f._tier.countdown = 0  # not read on the plain path
    np.testing.assert_array_equal(f(*_args()), axpy(*_args()))
    assert f._tier.countdown == 0


def forward(self, x, *, bias=0.0):
    return x * self.w + bias


def test_plain_path_keeps_keywords_methods_and_errors(clock, runs):
    """On the plain path a call is the user's call: keywords pass through, the compiled
    function binds as a method the way a function does, and errors are the function's own."""
    compiled = astcompile.compile(forward, backend="c")
    Layer = type("Layer", (), {"forward": compiled, "__init__": lambda self: setattr(self, "w", 2)})
    layer, x = Layer(), np.arange(4.0)
    for _ in range(_calls_until_choice()):
        layer.forward(x, bias=1.0)
    assert runs(compiled) is forward
    np.testing.assert_array_equal(layer.forward(x, bias=1.0), x * 2 + 1.0)
    assert layer.forward.__func__ is compiled and layer.forward.__self__ is layer
    assert Layer.forward is compiled
    with pytest.raises(TypeError) as plain:
        forward(layer, x, 1.0)
    with pytest.raises(TypeError) as ours:
        layer.forward(x, 1.0)
    assert str(ours.value) == str(plain.value)


def test_the_function_s_own_attributes_do_not_change_its_path(clock, runs):
    """``functools.wraps`` copies the function's attributes onto the compiled function: one
    named like ours (a web framework's ``route``) must not take the place of a path."""

    def scaled(a, x, y):
        return a * x + y

    scaled.route = "the user's"
    f = astcompile.compile(scaled, backend="c")
    for _ in range(_calls_until_choice()):
        f(*_args())
    assert runs(f) is scaled and f.route == "the user's"
    np.testing.assert_array_equal(f(*_args()), axpy(*_args()))


def test_plain_path_compares_again_for_new_argument_sizes(clock, runs):
    """Nothing is checked on the plain path (the function as written is right for any
    argument); the next sample sees other sizes and compares the paths again."""
    f = astcompile.compile(axpy, backend="c")
    for _ in range(_calls_until_choice()):
        f(*_args())
    assert runs(f) is axpy
    big = _args(4096)
    np.testing.assert_array_equal(f(*big), axpy(*big))  # plain until the resampler wakes it
    assert resample.resampler.run_due(math.inf) == 1
    np.testing.assert_array_equal(f(*big), axpy(*big))
    assert f._tier.pending and runs(f) is CompiledFunction.__call__
    with pytest.raises(TypeError, match="can't multiply sequence"):
        f(2.0, [1, 2], [3, 4])


def test_a_due_sample_confirms_plain_and_waits_longer(clock, runs):
    f = astcompile.compile(axpy, backend="c")
    for _ in range(_calls_until_choice()):
        f(*_args())
    delay = f._tier.delay
    assert resample.resampler.pending() == 1
    assert resample.resampler.run_due(math.inf) == 1
    assert runs(f) is CompiledFunction.__call__  # measured again, one sample pending
    np.testing.assert_array_equal(f(*_args()), axpy(*_args()))
    assert runs(f) is axpy and f._tier.plain  # the sample confirmed plain
    assert f._tier.delay == min(2 * delay, tiering.MAX_DELAY)
    assert resample.resampler.pending() == 1


def test_reset_leaves_the_plain_path(clock, runs):
    f = astcompile.compile(axpy, backend="c")
    for _ in range(_calls_until_choice()):
        f(*_args())
    f.reset()
    assert runs(f) is CompiledFunction.__call__
    assert resample.resampler.run_due(math.inf) == 1 and runs(f) is CompiledFunction.__call__


def test_a_function_without_source_runs_plain_at_once(clock, runs):
    namespace: dict = {"__name__": "generated"}
    exec("def double(x):\n    return 2 * x\n", namespace)  # noqa: S102 - no source file
    f = astcompile.compile(namespace["double"], backend="c")
    assert f(3) == 6
    assert runs(f) is namespace["double"]
    assert f(4) == 8


def test_resampler_thread_wakes_what_is_due():
    woken = threading.Event()

    class Target:
        def wake(self) -> None:
            woken.set()

    resampler, target = resample.Resampler(), Target()
    resampler.schedule(target, 0.0)
    assert woken.wait(30)
    assert resampler.pending() == 0


def test_fork_child_wakes_everything_scheduled():
    woken = []

    class Target:
        def wake(self) -> None:
            woken.append(self)

    resampler, target = resample.Resampler(threaded=False), Target()
    resampler.schedule(target, 1e9)
    resampler.after_fork()
    assert woken == [target] and resampler.pending() == 0


@pytest.mark.parametrize(
    "costs, rounds",
    [
        ({"compiled": 1.1e-6, "plain": 1e-6}, tiering.MAX_ROUNDS),  # close and quick: 16
        ({"compiled": 10e-6, "plain": 1e-6}, tiering.ROUNDS),  # far apart: 3 settle it
        ({"compiled": 1.1e-3, "plain": 1e-3}, tiering.ROUNDS),  # close but slow: past budget
    ],
)
def test_a_close_comparison_of_quick_calls_takes_more_rounds(clock, costs, rounds):
    """Three microsecond samples taken while a process is cold could pick the slower path for
    good; more rounds are taken where they are close and cost next to nothing."""
    clock.costs = costs
    f = astcompile.compile(axpy, backend="c")
    args = _args()
    for _ in range(tiering.WARMUP_CALLS - 1 + 2 * tiering.MAX_ROUNDS):
        f(*args)
    assert f._tier.choice is not None and f._tier.choice.rounds == rounds
    assert f"best of {rounds} sampled calls" in f._tier.choice.describe()


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
    for _ in range(_calls_until_choice()):
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
    for _ in range(_calls_until_choice()):
        assert count_leaves(5, _nothing) == 32
    assert count_leaves._tier.plain
    assert sampled == [5] * (_calls_until_choice() - tiering.WARMUP_CALLS + 1)


def test_a_sample_due_inside_a_recursion_waits_for_a_call_of_the_program(clock, monkeypatch, runs):
    """The resampler wakes a plain-running function in the middle of a recursion. Through a
    class, the next call is one of its calls of itself, which is no sample (its size is not
    the program's): it goes back to plain and waits for the next wake, its choice unchanged.
    Through its route, its calls of itself run its twin and never reach it: the sample is the
    program's next call."""
    f = _as_decorated(count_leaves.fn)
    for _ in range(_calls_until_choice()):
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
    for _ in range(_calls_until_choice()):
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


def test_compiled_path_changing_mid_comparison_starts_it_over(clock):
    """A slow start: the first compiled samples time a slower compiled path (the C call path
    still building), then it lands before the comparison ends. Kept, those samples chose plain,
    and plain was never measured against compiled again; the comparison starts over instead."""
    f = astcompile.compile(axpy, backend="c")
    args = _args()
    clock.costs = {"compiled": 10e-6, "plain": 1e-6}
    for _ in range(_calls_until_choice() - 1):  # every compiled sample, not the last plain one
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
    args = _args()
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


@pytest.mark.parametrize("plain_s, rounds", [(5e-3, 1), (5e-4, tiering.ROUNDS)])
def test_a_long_plain_call_far_slower_than_compiled_decides_in_one_round(clock, plain_s, rounds):
    """Each plain sample costs a call as slow as the function as written: where one round
    shows compiled calls far faster than plain ones of a millisecond or more, more rounds
    cannot change the choice (a 140 ms DP 100x faster compiled paid two more plain calls)."""
    clock.costs = {"compiled": plain_s / 50, "plain": plain_s}
    f = astcompile.compile(axpy, backend="c")
    for _ in range(tiering.WARMUP_CALLS - 1 + 2 * rounds):
        assert f._tier.choice is None
        f(*_args())
    assert f._tier.choice is not None and not f._tier.plain
    assert len(f._tier.times["plain"]) == rounds


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
    for _ in range(_calls_until_choice()):
        f(*_args())
    assert f._tier.choice is not None and not f._tier.plain
    f.compare_again(cheaper=True)
    assert not f._tier.pending
    clock.costs = {"compiled": 10e-6, "plain": 1e-6}
    g = astcompile.compile(axpy, backend="c")
    for _ in range(_calls_until_choice()):
        g(*_args())
    assert g._tier.plain
    g.compare_again(cheaper=True)
    assert g._tier.pending


def test_a_slow_sample_reopens_only_where_the_other_path_could_win(clock):
    """A compiled call far off its best after a pause (cold caches) but still far below plain's
    best changes nothing: reopening would run three plain calls for the same choice."""
    clock.costs = {"compiled": 1e-6, "plain": 100e-6}
    f = astcompile.compile(axpy, backend="c")
    for _ in range(_calls_until_choice()):
        f(*_args())
    tier = f._tier
    assert tier.choice is not None and not tier.plain
    clock.costs = {"compiled": 20e-6, "plain": 100e-6}  # 20x its best, 5x faster than plain
    tier.countdown = 1
    f(*_args())
    assert not tier.pending
    clock.costs = {"compiled": 200e-6, "plain": 100e-6}  # slower than plain was: compare
    tier.countdown = 1
    f(*_args())
    assert not tier.pending and tier.countdown == 1  # once could be a preempted call
    f(*_args())
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
    f(*_args(4096))  # the woken sample sees new sizes: compare again
    assert tier.pending


def _plain_axpy_woken(clock) -> tuple[CompiledFunction, tiering.Tier]:
    """axpy settled on plain at the clock's costs, its next sample due."""
    f = astcompile.compile(axpy, backend="c")
    for _ in range(tiering.WARMUP_CALLS + 2 * tiering.MAX_ROUNDS):  # close: more rounds
        f(*_args())
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
        f(*_args())  # the due sample
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
    f(*_args())
    assert tier.opened == opened and tier.countdown == 1 and runs(f) is CompiledFunction.__call__
    clock.costs["plain"] = 1e-6
    f(*_args())
    assert tier.opened == opened and runs(f) is axpy and not tier.pending
    assert tier.delay == min(2 * delay, tiering.MAX_DELAY) and resample.resampler.pending() == 1


def test_a_plain_path_slow_twice_in_a_row_is_compared_again(clock, runs):
    """The work grew at the same sizes (plain now 20x its best on two samples running): a real
    change, so both paths are timed again, and the compiled path now wins."""
    f, tier = _plain_axpy_woken(clock)
    clock.costs["plain"] = 20e-6
    f(*_args())
    f(*_args())
    assert tier.pending and runs(f) is CompiledFunction.__call__
    for _ in range(2 * tiering.ROUNDS):
        f(*_args())
    assert not tier.pending and not tier.plain and not tier.doubted
