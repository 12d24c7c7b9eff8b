"""Region dispatch: which calls compile, which run as the user's statements, and how often."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import BACKENDS, assert_matches

import astcompile


@pytest.mark.parametrize("backend", BACKENDS)
def test_index_that_changes_every_call_compiles_once(backend):
    """An int that changes from call to call (a loop index passed into a region by a loop
    left in Python) is traced as a run-time value after its first change: one recompile,
    never one compile per value."""

    def f(x, i):
        return x[i] * 2.0 + x

    compiled = astcompile.compile(f, backend=backend)
    x = np.arange(7.0)
    for i in [0, 1, 2, 3, -1, -7, 6]:
        np.testing.assert_array_equal(compiled(x, i), f(x, i))
    (region,) = compiled.regions
    assert region.stats.traces == 3  # 0, then any non-negative int, then any negative one
    assert region.stats.eager_calls == 0
    with pytest.raises(IndexError):
        compiled(x, 7)


def test_value_the_body_needs_stays_specialised():
    """``range(n)`` needs n's value: the run-time trace breaks, the region is specialised per
    value as before (and stays right)."""

    def f(x, n):
        return x.reshape(n, -1).sum(axis=0)

    compiled = astcompile.compile(f, backend="eager")
    x = np.arange(12.0)
    for n in [1, 2, 3, 4, 6]:
        np.testing.assert_array_equal(compiled(x, n), f(x, n))


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalar_only_region_runs_as_python(backend):
    """A region of scalar arithmetic and element reads/stores is not compiled: a call into
    compiled code costs more than the arithmetic. It runs the user's statements."""

    def f(out, values, i, tol):
        a = values[i]
        guess = 0.5 * (a + 1.0)
        err = abs(guess - a)
        out[i] = guess
        return err > tol

    compiled = astcompile.compile(f, backend=backend)
    values = np.array([4.0, 9.0, 16.0])
    out, want = np.zeros(3), np.zeros(3)
    for i in range(3):
        assert compiled(out, values, i, 1e-3) == f(want, values, i, 1e-3)
    np.testing.assert_array_equal(out, want)
    (region,) = compiled.regions
    assert region.stats.compiled_calls == 0 and region.stats.eager_calls == 3


def test_scalar_body_of_a_python_loop_runs_inside_the_loop(monkeypatch):
    """A loop left in Python (a list of strings cannot be traced) whose body computes only
    scalars runs that body as written from the second call on, with no region call per
    iteration: with tiering off the region call cost 24x the plain loop."""
    monkeypatch.setattr(astcompile.config, "tiering", False)

    def count_words(lines):
        total = 0
        for line in lines:
            total += len(line.split())
        return total

    compiled = astcompile.compile(count_words, backend="c")
    lines = ["a b c", "d e"] * 40
    for _ in range(3):
        assert compiled(lines) == count_words(lines) == 200
    calls = sum(region.stats.eager_calls for region in compiled.regions)
    assert compiled(lines) == 200
    assert sum(region.stats.eager_calls for region in compiled.regions) - calls <= 1


def test_a_scalar_body_reading_new_strings_is_traced_once(monkeypatch):
    """Each line of text is a new kind (strings steer a trace): once the body is known to be
    scalars only, the rest of the call runs it as written too, instead of tracing each new line
    up to cache_size_limit and warning that it was hit."""
    monkeypatch.setattr(astcompile.config, "tiering", False)

    def parse(lines):
        vals = np.zeros(len(lines))
        for i, line in enumerate(lines):
            parts = line.split(",")
            vals[i] = float(parts[1]) * 2.0
        return vals.sum()

    compiled = astcompile.compile(parse, backend="c")
    lines = [f"x,{i}" for i in range(100)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for _ in range(3):
            assert compiled(lines) == parse(lines)
    assert sum(region.stats.traces for region in compiled.regions) <= 2


def test_array_region_still_compiles():
    def f(x):
        return np.exp(x) + 1.0

    compiled = astcompile.compile(f, backend="c")
    x = np.linspace(0, 1, 16)
    assert_matches(compiled(x), f(x))
    (region,) = compiled.regions
    assert region.stats.compiled_calls == 1


def test_a_tracer_failure_is_reported_by_explain():
    """An exception inside the tracer (here: ``int.bit_length`` of a traced int) runs the
    region in NumPy, correctly, and ``explain`` lists it as a break at the user's line."""

    def f(x):
        s = 0
        for i in range(x.shape[0]):
            q, r = i.bit_length(), i % 3
            s += q * r
        return s + x.sum()

    x = np.arange(10.0)
    output = astcompile.explain(astcompile.compile(f, backend="eager"), x)
    assert output.out == f(x)
    (reason,) = output.break_reasons
    assert reason.code == "GB021" and "bit_length" in reason.detail
    assert reason.source_line == "q, r = i.bit_length(), i % 3"


def test_a_function_that_is_one_region_calls_it_directly():
    """``f(x, y)`` of a function whose body is one region runs the region's guards with no
    rewritten frame between, keywords and defaults bound as Python binds them (a function with
    defaults is one region too); statements around the region take the rewritten function,
    with the same results."""

    def whole(x, y):
        return x * 2.0 + y

    def keyword_default(x, y=1.0):
        return x * 2.0 + y

    def with_break(x, y):
        z = x * 2.0 + y
        print(end="")
        return z

    x, y = np.arange(5.0), np.ones(5)
    direct = astcompile.compile(whole, backend="c")
    np.testing.assert_array_equal(direct(x, y), whole(x, y))  # the first call builds
    np.testing.assert_array_equal(direct(x, y), whole(x, y))
    np.testing.assert_array_equal(direct(x, y=y), whole(x, y))
    np.testing.assert_array_equal(direct(x.astype(np.float32), y), whole(x.astype(np.float32), y))
    assert direct._sole_region is direct.regions[0]
    stats = direct.regions[0].stats
    assert (stats.traces, stats.compiled_calls, stats.eager_calls) == (2, 4, 0)  # f64, f32
    for fn, sole in ((keyword_default, True), (with_break, False)):
        compiled = astcompile.compile(fn, backend="c")
        np.testing.assert_array_equal(compiled(x, y), fn(x, y))
        np.testing.assert_array_equal(compiled(x, y=y), fn(x, y=y))
        assert (compiled._sole_region is not None) == sole
    default = astcompile.compile(keyword_default, backend="c")
    for _ in range(3):
        np.testing.assert_array_equal(default(x), keyword_default(x))
    with pytest.raises(TypeError):
        direct(x)  # a wrong call still fails as Python's does


def test_a_scalar_reduced_from_a_whole_array_is_compiled():
    """``x.mean(), x.var()`` returns scalars but reads every element: not the O(1) scalar
    arithmetic that runs faster as Python."""

    def mean_var(x):
        return x.mean(), x.var()

    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    compiled = astcompile.compile(mean_var, backend="c")
    for _ in range(2):
        got, want = compiled(x), mean_var(x)
        assert [type(v) for v in got] == [type(v) for v in want]
        np.testing.assert_allclose(got, want, rtol=1e-5)
    (region,) = compiled.regions
    assert (region.stats.compiled_calls, region.stats.eager_calls) == (2, 0)


def softsign_sum(x):
    return (x / (1.0 + np.abs(x))).sum() + np.tanh(x).max()


@pytest.mark.parametrize("budget", [float("inf"), 5.0])
def test_concurrent_first_calls_trace_once_and_build_once(tmp_path, monkeypatch, budget):
    """Eight threads call a new function at once: they wait for the region's lock, and all
    but the first find the entry the first one compiled, or, under a budget (the build
    runs on the background thread), the build under way: they run the statements meanwhile."""
    import threading
    import time

    from astcompile.jit import background
    from astcompile.runtime import loader

    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))  # nothing on disk yet
    monkeypatch.setattr(astcompile.config, "compile_budget", budget)
    monkeypatch.setattr(loader, "_loaded", {})  # nor in this process: the build is counted
    builds = []
    real = loader.build.compile_shared

    def slow_build(*args, **kwargs):
        builds.append(threading.get_ident())
        time.sleep(0.3)  # the others are waiting meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(loader.build, "compile_shared", slow_build)
    compiled = astcompile.compile(softsign_sum)
    x = np.linspace(-3, 3, 101)
    barrier = threading.Barrier(8)
    results = [None] * 8

    def call(i):
        barrier.wait()
        results[i] = compiled(x)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    background.wait()
    assert all(np.isclose(r, softsign_sum(x)) for r in results)
    assert sum(r.stats.traces for r in compiled.regions) == 1
    assert len(builds) == 1
