"""``np.histogram`` runs as a NumPy step (trace/numpy_steps.py): counts and edges, their
dtypes and NumPy's errors, and the statements around it still compile.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls
from graphs import lowered, traced

import astcompile


def counts(v):
    h, e = np.histogram(v, bins=4)
    return h * 2, e


def counts_in_range(v, w):
    h, e = np.histogram(v, bins=5, range=(0.0, 1.0), weights=w)
    d, _ = np.histogram(v, bins=[0.0, 0.25, 1.0], density=True)
    return h + 1.0, e, d


def bad_bins(v):
    return np.histogram(v, bins=-1)[0] + 1


RNG = np.random.default_rng(5)
CASES = [
    (counts, [(RNG.random(20),), (RNG.integers(0, 9, 12),), (np.zeros(0),)]),
    (counts_in_range, [(RNG.random(30), RNG.random(30)), (RNG.random(8).astype(np.float32), None)]),
    (bad_bins, [(RNG.random(5),)]),  # NumPy's ValueError
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, calls", CASES, ids=[c[0].__name__ for c in CASES])
def test_histograms_match_numpy(fn, calls, backend):
    assert_same_calls(fn, calls, backend=backend)


@pytest.mark.parametrize(
    "fn, args", [(counts, (RNG.random(9),)), (counts_in_range, (RNG.random(30), RNG.random(30)))]
)
def test_histograms_do_not_break_the_region(fn, args):
    report = astcompile.explain(astcompile.compile(fn, backend="c"), *args)
    assert report.graph_break_count == 0, str(report)


def edges_given(v, e):
    h, b = np.histogram(v, bins=e)
    return h, b * 2, b


def edges_computed(v, e):
    _, b = np.histogram(v, bins=e * 1.0)
    return b, e * 1.0  # equal to b, but NumPy's b is the array passed: two arrays


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [edges_given, edges_computed])
def test_edges_passed_in_are_numpys_own_array(fn, backend):
    """With ``bins`` an array NumPy returns that array itself as the edges: ``b * 2`` must not
    be written over it (the caller's ``e``), and ``b is e`` holds as in NumPy."""
    assert_same(fn, RNG.random(12), np.array([0.0, 0.3, 1.0]), backend=backend)


def edges_and_counts(v):
    """Both results of one call, each used: the wrapper once had one NumPy step per result."""
    h, e = np.histogram(v, bins=10, range=(0.0, 1.0))
    return h / len(v), e[1:] - e[:-1]


@pytest.mark.parametrize(
    "fn, args, calls",
    [(counts, (RNG.random(9),), 1), (counts_in_range, (RNG.random(30), RNG.random(30)), 2)],
)
def test_each_histogram_call_runs_once(fn, args, calls):
    wrapper = lowered(traced(fn, *args)).code.parts
    ran = [n for n in wrapper.steps.values() if n.attr.name == "histogram"]
    assert len(ran) == calls, wrapper.py
    assert_same(fn, *args, backend="c")


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_results_used_apart(backend):
    assert_same_calls(edges_and_counts, [(RNG.random(50),), (RNG.random(7),)], backend=backend)
