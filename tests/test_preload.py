"""The front end's import on a thread of its own (jit/preload.py): a first call waits for it
only as long as its budget has left, then runs as written; a later call rewrites once the
import is done and the budget has paid back."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from differential import assert_same_value

import astcompile
from astcompile.jit import background, preload


def smooth(x):
    y = np.exp(-x * x) * 0.5 + np.sin(x)
    return y / (1.0 + np.abs(y))


@pytest.fixture
def slow_import(monkeypatch, tmp_path):
    """A front end whose import ends when the test releases it (a loaded machine's 1 s)."""
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    release = threading.Event()

    def load() -> None:
        release.wait(10)
        preload._import_frontend()

    monkeypatch.setattr(preload, "FRONTEND", preload.Preload(load))
    yield release
    release.set()
    background.wait()


def test_a_first_call_waits_for_the_import_only_within_the_budget(slow_import, monkeypatch):
    monkeypatch.setattr(astcompile.config, "compile_budget", 0.05)
    x = np.linspace(-2, 2, 500)
    f = astcompile.compile(smooth, backend="c")
    assert_same_value(f(x), smooth(x))  # as written: the import did not end in time
    assert f.regions == [] and f.budget.spent >= 0.05 and f.budget.waited > 0
    assert_same_value(f(x), smooth(x))  # still imported elsewhere: as written again
    assert f.regions == []

    slow_import.set()
    assert preload.FRONTEND.done.wait(10)
    f.budget.waited = f.budget.spent + 60  # as if it had run that long: compiling goes on
    assert_same_value(f(x), smooth(x))
    assert len(f.regions) == 1 and f.regions[0].stats.traces == 1


def test_without_a_budget_the_call_imports_the_front_end_itself(slow_import, monkeypatch):
    """Tests, explain, verify and ``astcompile build`` (``inf``), like ``fullgraph=True``,
    compile on the first call as before: the import is the call's own."""
    monkeypatch.setattr(astcompile.config, "compile_budget", math.inf)
    x = np.linspace(-2, 2, 500)
    f = astcompile.compile(smooth, backend="c")
    assert_same_value(f(x), smooth(x))
    assert f.regions[0].stats.compiled_calls == 1
    assert preload.FRONTEND.done.is_set()


def test_fullgraph_imports_the_front_end_in_its_first_call(slow_import, monkeypatch):
    monkeypatch.setattr(astcompile.config, "compile_budget", 0.0)
    x = np.linspace(-2, 2, 500)
    f = astcompile.compile(smooth, backend="c", fullgraph=True)
    assert_same_value(f(x), smooth(x))
    assert len(f.regions) == 1
