"""The waiting path (jit/waiting.py): a function none of whose code can run compiled yet runs as
written; it times its calls in windows and runs its plain route between them, and a build that
lands ends the path at the next call. Results are the plain function's throughout."""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import assert_same_value

import astcompile
from astcompile.jit import background, preload, resample, waiting


def smooth(x):
    y = np.exp(-x * x) * 0.5 + np.sin(x)
    return y / (1.0 + np.abs(y))


@pytest.fixture
def windows(monkeypatch, tmp_path):
    """Nothing compiles in the calls (a budget of 0), windows close after their calls whatever
    the time, and the wakes between them come when the test says (an unthreaded resampler)."""
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    monkeypatch.setattr(astcompile.config, "compile_budget", 0.0)
    monkeypatch.setattr(waiting, "SPAN", 0.0)
    preload.import_frontend(None)  # as after an earlier compile: the rewrite spends the budget
    clock = resample.Resampler(threaded=False)
    monkeypatch.setattr(resample, "resampler", clock)
    yield clock
    background.wait()


def _waiting(x):
    f = astcompile.compile(smooth, backend="c")
    f(x)  # the rewrite spent the budget: the function waits
    assert f.waiting is not None
    return f


def test_between_windows_the_calls_are_the_function_untimed(windows):
    """A window's calls are timed into the budget; after it the function runs its plain route
    (a 0.6 µs swap ran at 0.85x plain when every call was timed) until the resampler opens the
    next window, whose close pays the gap at the share of time the function took."""
    x = np.linspace(-2, 2, 500)
    f = _waiting(x)
    budget = f.budget
    for _ in range(waiting.WINDOW):
        assert_same_value(f(x), smooth(x))
    assert windows.pending() == 1  # the next window is due after the gap
    waited = budget.waited
    for _ in range(5):
        assert_same_value(f(x), smooth(x))
    assert budget.waited == waited  # the plain route: nothing of ours around the call
    assert windows.run_due(math.inf) == 1
    assert_same_value(f(x), smooth(x))
    assert budget.waited > waited  # timed again
    for _ in range(waiting.WINDOW - 1):
        assert_same_value(f(x), smooth(x))
    assert windows.pending() == 1 and f.waiting is not None


def test_a_build_that_lands_between_windows_ends_the_wait_at_the_next_call(windows):
    """The build's resume opens a window at once: the next call leaves the path and measures
    (a function on its plain route would otherwise wait for the resampler to see the build)."""
    x = np.linspace(-2, 2, 500)
    f = _waiting(x)
    region = f.regions[0]
    f.budget.waited = f.budget.waited_to_resume() + 1e-9  # paid back: the next call traces
    f(x)  # traced; built in the background, or loaded at once
    for _ in range(waiting.WINDOW):
        assert_same_value(f(x), smooth(x))
    background.wait()
    for _ in range(3):
        assert_same_value(f(x), smooth(x))
    assert f.waiting is None
    assert region.stats.compiled_calls >= 1


def test_a_window_pays_no_gap_for_a_function_not_called_meanwhile(windows):
    """A gap counts at the lower share of the windows around it, each measured from its
    opening: a function that was not called for a while pays next to nothing for it."""
    x = np.linspace(-2, 2, 500)
    f = _waiting(x)
    for _ in range(waiting.WINDOW):
        f(x)
    state = f.waiting
    state.rest -= 100.0  # a gap of 100 s with no call of it
    windows.run_due(math.inf)
    state.opened -= 100.0  # and the window opened then too: the program did other things
    waited = f.budget.waited
    for _ in range(waiting.WINDOW):
        f(x)
    assert f.budget.waited - waited < 1.0


def test_reset_ends_the_waiting_path(windows):
    x = np.linspace(-2, 2, 500)
    f = _waiting(x)
    f.reset()
    assert f.waiting is None
    assert_same_value(f(x), smooth(x))
