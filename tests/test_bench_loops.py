"""bench/measure.py's ``until_built``, which bench/loops.py and bench/programs run before they
time steady state: it calls the function until the compiled code its first calls put off has
landed."""

from __future__ import annotations

import numpy as np

import astcompile
from astcompile import config
from astcompile.jit import preload
from bench import measure


def scaled_sum(x):
    y = x * 2.0 + 1.0
    return float(y.sum())


def test_steady_state_waits_out_a_spent_compile_budget(monkeypatch):
    """A first call that spent the budget leaves the function on its waiting path (the user's
    function, timed); a timing then times the function as written. Afterwards its region has
    compiled code and the function is off that path."""
    preload.import_frontend(None)  # as after a first compile: the budget goes to the build
    monkeypatch.setattr(config, "compile_budget", 0.0)
    f = astcompile.compile(scaled_sum, backend="c")
    x = np.arange(20000.0)
    f(x)
    assert f.waiting is not None and not f._live_regions[0].entries
    calls = measure.until_built(f, lambda: f(x))
    assert calls > 0
    assert f.waiting is None and f._live_regions[0].entries
    assert f(x) == scaled_sum(x)


def test_a_function_compiled_already_costs_one_call(monkeypatch):
    f = astcompile.compile(scaled_sum, backend="c")
    x = np.arange(100.0)
    f(x)
    made: list[int] = []
    assert measure.until_built(f, lambda: made.append(f(x))) == 0
    assert len(made) == 1 and f._live_regions[0].entries
