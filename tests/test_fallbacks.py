"""Every fallback runs the region's own statements (the plain body), never the graph interpreter.

A region that cannot run compiled — its trace breaks, the C backend cannot lower it, its cache
is full, frozen mode has no entry for it, NumPy's error state asks to raise — runs the user's
statements as Python. The interpreter (``targets/eager.run_plan``) is only for
``backend="eager"``; each test checks it never ran, and that the answer is NumPy's.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from differential import TRITON

import astcompile
from astcompile.targets import eager
from bench.programs.matvec_lists import matvec_lists

#: The compiling targets: each falls back to the plain body, never the interpreter.
TARGETS = pytest.mark.parametrize("backend", ["c", *TRITON])


@pytest.fixture
def interpreted(monkeypatch):
    """Graphs the eager interpreter ran during the test (Triton's kernels interpreted)."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    ran = []
    original = eager.run_plan

    def recording(graph, *args, **kwargs):
        ran.append(graph.name)
        return original(graph, *args, **kwargs)

    monkeypatch.setattr(eager, "run_plan", recording)
    return ran


def unique_scaled(x):
    y = np.unique(x) * 2.0
    return y + 1.0


def flat_first(x):
    y = x[:, ::2].reshape(-1)  # a store through a reshape of a strided array
    y[0] = 5.0
    return y


def scaled(x):
    return x * 2.0 + 1.0


def never_compiled(x):
    return x * 3.0 - 1.0


def _plain_calls(compiled) -> int:
    return sum(region.stats.eager_calls for region in compiled.regions)


@TARGETS
def test_trace_failure_runs_the_body(backend, interpreted):
    f = astcompile.compile(unique_scaled, backend=backend)
    x = np.array([3.0, 1.0, 3.0, 2.0])
    for _ in range(3):
        np.testing.assert_array_equal(f(x), unique_scaled(x))
    assert _plain_calls(f) == 3 and interpreted == []


@TARGETS
def test_unlowerable_region_runs_the_body(backend, interpreted):
    f = astcompile.compile(flat_first, backend=backend)
    x = np.arange(24.0).reshape(4, 6)
    for _ in range(2):
        np.testing.assert_array_equal(f(x.copy()), flat_first(x.copy()))
    assert _plain_calls(f) == 2 and interpreted == []
    codes = [b.code for b in astcompile.explain(f, x.copy()).break_reasons]
    assert codes == ["GB023"]


@TARGETS
def test_full_cache_runs_the_body(backend, interpreted, monkeypatch):
    monkeypatch.setattr(astcompile.config, "cache_size_limit", 1)
    f = astcompile.compile(scaled, backend=backend)
    f(np.ones(4))  # the one entry
    with pytest.warns(RuntimeWarning, match="cache_size_limit=1"):
        out = f(np.ones(4, dtype=np.float32))  # a second dtype: over the limit
    np.testing.assert_array_equal(out, scaled(np.ones(4, dtype=np.float32)))
    assert out.dtype == np.float32
    assert _plain_calls(f) == 1 and interpreted == []


def _unique_labelled(x, label):
    y = (x * 2).astype(np.int64)
    return np.unique(y), label + "!"


def test_strings_that_cannot_compile_stop_tracing_after_two(monkeypatch, recwarn):
    """A string steers the trace, so each value is a kind of its own; a loop calling a region
    with 5,000 lines of text traced it 5,000 times (and regenerated its guards each time),
    then up to cache_size_limit times with a warning; two failing strings now stand for all
    the strings of that class (jit/failures.STRING_FAILURES)."""
    monkeypatch.setattr(astcompile.config, "cache_size_limit", 8)
    f = astcompile.compile(_unique_labelled, backend="c")
    for i in range(40):
        out = f(np.arange(5.0), f"line {i}")
    np.testing.assert_array_equal(out[0], _unique_labelled(np.arange(5.0), "")[0])
    assert out[1] == "line 39!"
    (region,) = f.regions
    assert len(region.eager_keys) == 2
    assert not [w for w in recwarn if "cache_size_limit" in str(w.message)]


def test_a_region_run_plain_runs_its_loops_as_written(tmp_path, monkeypatch):
    """A region's plain run (a call its compiled code declines, a kind that failed, a call
    while it builds) is the user's statements, not its loops lowered for the tracer: a call
    of the loop body per iteration ran a 250x250 matvec on lists at 5x the plain time."""
    A = [[float(i * j % 7) for j in range(30)] for i in range(30)]
    x, b = [1.0] * 30, [2.0] * 30
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))  # nothing remembered
    f = astcompile.compile(matvec_lists, backend="c")
    assert f(A, x, b) == matvec_lists(A, x, b)
    (region,) = [r for r in f.regions if r.traced is not r.body]  # the one with loops
    assert region.names == ("A", "x", "b")
    assert "_for" in _functions_called(region.traced, A, x, b)  # the lowered form: a call each
    assert "_for" not in _functions_called(region.run_body, (A, x, b))


def _functions_called(fn, *args) -> set[str]:
    calls = set()
    sys.setprofile(lambda frame, event, arg: calls.add(frame.f_code.co_name))
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return calls


@TARGETS
def test_frozen_miss_runs_the_body(backend, interpreted):
    """Frozen mode compiles nothing: with no cached entry, the statements run as written."""
    f = astcompile.compile(never_compiled, backend=backend, mode="frozen")
    x = np.arange(5.0)
    np.testing.assert_array_equal(f(x), never_compiled(x))
    assert all(region.stats.compiled_calls == 0 for region in f.regions)
    assert _plain_calls(f) == len(f.regions) and interpreted == []


@TARGETS
def test_errstate_that_raises_runs_the_body(backend, interpreted):
    f = astcompile.compile(scaled, backend=backend)
    f(np.ones(3))
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        f(np.array([1e308]))
    assert interpreted == []
