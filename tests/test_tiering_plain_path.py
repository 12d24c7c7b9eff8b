"""The plain path tiering chooses (jit/tiering.py, jit/routes.py): the user's own function runs,
with its keywords, methods and errors, and a due sample or new sizes compare again."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
import tiering_clock
from tiering_clock import axpy, axpy_args, calls_until_choice

import astcompile
from astcompile.jit import resample, tiering
from astcompile.jit.function import CompiledFunction


@pytest.fixture
def clock(monkeypatch):
    return tiering_clock.install(monkeypatch)


class Model:
    def __init__(self) -> None:
        self.w = np.linspace(0.0, 1.0, 8)

    @astcompile.compile
    def forward(self, x, bias=0.5):
        return x * self.w + bias


def test_methods_and_keywords_on_both_paths(clock):
    model, x = Model(), np.arange(8.0)
    want = Model.forward.__wrapped__(model, x, bias=0.25)
    for _ in range(calls_until_choice() + 3):
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
    args = axpy_args()
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
    for _ in range(calls_until_choice()):
        f(*axpy_args())
    assert isinstance(f, CompiledFunction) and runs(f) is axpy
    assert type(f).__qualname__ == "CompiledFunction"
    assert repr(f) == "<astcompile compiled function axpy>" and f.__name__ == "axpy"
    f._tier.countdown = 0  # not read on the plain path
    np.testing.assert_array_equal(f(*axpy_args()), axpy(*axpy_args()))
    assert f._tier.countdown == 0


def forward(self, x, *, bias=0.0):
    return x * self.w + bias


def test_plain_path_keeps_keywords_methods_and_errors(clock, runs):
    """On the plain path a call is the user's call: keywords pass through, the compiled
    function binds as a method the way a function does, and errors are the function's own."""
    compiled = astcompile.compile(forward, backend="c")
    Layer = type("Layer", (), {"forward": compiled, "__init__": lambda self: setattr(self, "w", 2)})
    layer, x = Layer(), np.arange(4.0)
    for _ in range(calls_until_choice()):
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
    for _ in range(calls_until_choice()):
        f(*axpy_args())
    assert runs(f) is scaled and f.route == "the user's"
    np.testing.assert_array_equal(f(*axpy_args()), axpy(*axpy_args()))


def test_plain_path_compares_again_for_new_argument_sizes(clock, runs):
    """Nothing is checked on the plain path (the function as written is right for any
    argument); the next sample sees other sizes and compares the paths again."""
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        f(*axpy_args())
    assert runs(f) is axpy
    big = axpy_args(4096)
    np.testing.assert_array_equal(f(*big), axpy(*big))  # plain until the resampler wakes it
    assert resample.resampler.run_due(math.inf) == 1
    np.testing.assert_array_equal(f(*big), axpy(*big))
    assert f._tier.pending and runs(f) is CompiledFunction.__call__
    with pytest.raises(TypeError, match="can't multiply sequence"):
        f(2.0, [1, 2], [3, 4])


def test_a_due_sample_confirms_plain_and_waits_longer(clock, runs):
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        f(*axpy_args())
    delay = f._tier.delay
    assert resample.resampler.pending() == 1
    assert resample.resampler.run_due(math.inf) == 1
    assert runs(f) is CompiledFunction.__call__  # measured again, one sample pending
    np.testing.assert_array_equal(f(*axpy_args()), axpy(*axpy_args()))
    assert runs(f) is axpy and f._tier.plain  # the sample confirmed plain
    assert f._tier.delay == min(2 * delay, tiering.MAX_DELAY)
    assert resample.resampler.pending() == 1


def test_reset_leaves_the_plain_path(clock, runs):
    f = astcompile.compile(axpy, backend="c")
    for _ in range(calls_until_choice()):
        f(*axpy_args())
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
    args = axpy_args()
    for _ in range(tiering.WARMUP_CALLS - 1 + 2 * tiering.MAX_ROUNDS):
        f(*args)
    assert f._tier.choice is not None and f._tier.choice.rounds == rounds
    assert f"best of {rounds} sampled calls" in f._tier.choice.describe()
