"""NumPy functions with no kernel run as NumPy steps inside compiled regions
(trace/numpy_steps.py): results, dtypes and errors are NumPy's own, and the statements around
them still compile. In a loop region such a step has no lowering: that statement alone runs as
written, and the loop stays native.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls
from graphs import lowered, traced

import astcompile


def sorted_and_ranked(x):
    return np.sort(x) * 2.0, np.argsort(x), np.sort(x, axis=None)


def robust_scale(x):
    lo, hi = np.percentile(x, [2, 98])
    return np.clip((x - lo) / (hi - lo), 0, 1), np.median(x), np.quantile(x, 0.5, axis=0)


def lookup(x, xp, fp):
    return (
        np.interp(x, xp, fp) + 1.0,
        np.searchsorted(xp, x),
        np.searchsorted(xp, 0.5, side="right"),
    )


def solved(A, b):
    x = np.linalg.solve(A, b)
    return x * 2, np.linalg.det(A), np.linalg.inv(A) @ b


RNG = np.random.default_rng(0)
A = RNG.random((4, 4)) + 4 * np.eye(4)
CASES = [
    (sorted_and_ranked, [(RNG.random(6),), (RNG.random((3, 4)),), (np.arange(5)[::-1],)]),
    (sorted_and_ranked, [(np.zeros(0),), (np.array([3, 1, 2], np.int8),)]),
    (robust_scale, [(RNG.random((5, 4)),), (RNG.random(7).astype(np.float32),)]),
    (
        lookup,
        [
            (RNG.random(5), np.linspace(0, 1, 4), RNG.random(4)),
            (0.3, np.linspace(0, 1, 4), RNG.random(4)),
        ],
    ),
    (solved, [(A, RNG.random(4)), (A.astype(np.float32), RNG.random(4).astype(np.float32))]),
    (solved, [(np.zeros((2, 2)), np.ones(2))]),  # NumPy's LinAlgError, raised by the step
    (robust_scale, [(np.zeros(0),)]),  # NumPy's IndexError for an empty percentile
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, calls", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)]
)
def test_numpy_steps_give_numpys_results_and_errors(fn, calls, backend):
    assert_same_calls(fn, calls, backend=backend)


@pytest.mark.parametrize("fn, calls", CASES[:5], ids=[c[0].__name__ for c in CASES[:5]])
def test_numpy_steps_do_not_break_the_region(fn, calls):
    report = astcompile.explain(astcompile.compile(fn, backend="c"), *calls[0])
    assert report.break_reasons == [], str(report)


def bootstrap_interval(x, idx, alpha):
    means = np.empty(idx.shape[0])
    for k in range(idx.shape[0]):
        means[k] = x[idx[k]].mean()
    lo = np.percentile(means, 100 * alpha / 2)
    return means.mean(), lo


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_step_after_a_loop_runs_alone_and_the_loop_stays_native(backend):
    x, idx = RNG.exponential(2.0, 30), RNG.integers(0, 30, size=(12, 30))
    compiled = astcompile.compile(bootstrap_interval, backend=backend)
    for _ in range(3):
        assert_same(bootstrap_interval, x, idx, 0.05, backend=backend)
        compiled(x, idx, 0.05)
    if backend == "c":  # the interpreter runs the step inside the loop region itself
        line = bootstrap_interval.__code__.co_firstlineno + 4
        assert compiled.python_lines == {line} and not compiled.python_loops
        loop = next(r for r in reversed(compiled.regions) if r.spec.structured)
        assert loop.stats.compiled_calls > 0 and loop.stats.eager_calls == 0


def right_positions(a, v):
    return np.searchsorted(a, v * 0.5, side="right")


def test_a_numpy_step_calls_numpys_function():
    """With its static keywords bound once: the eager rule's lookups per call cost 1-2 us, a
    region that is one np.searchsorted ran at 0.7x plain on the compiled path."""
    a, v = np.sort(np.random.default_rng(3).random(40)), np.linspace(0.0, 2.0, 9)
    wrapper = lowered(traced(right_positions, a, v)).code.parts
    assert "_step(" not in wrapper.py and "_fn" in wrapper.py, wrapper.py
    assert_same_calls(right_positions, [(a, v), (a[:7], v[::2])], backend="c")
