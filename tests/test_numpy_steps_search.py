"""Searching, selecting and counting run as NumPy steps inside compiled regions
(trace/numpy_steps_search.py): ``np.isin``, ``np.digitize``, ``np.partition``,
``np.argpartition``, ``np.bincount`` with a ``minlength`` (NumPy's loop, traced), and the methods
``a.sort()`` (in place), ``a.argsort()``, ``a.argpartition(k)``, ``a.searchsorted(v)``. Results,
dtypes, writes into the caller's arrays and errors are NumPy's own.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls

import astcompile


def members(x, t):
    return np.isin(x, t) & (x > 2), np.isin(x, t, invert=True), np.isin(x, [1, 5])


def tabled(x, t):
    return np.isin(x, t, kind="table") * 2  # integers only: NumPy's ValueError for floats


def binned(x, bins):
    return np.digitize(x, bins) + 1, np.digitize(x, bins, right=True)


def selected(x):
    return np.partition(x, 2) * 2, np.argpartition(x, (0, 3)), np.partition(x, -1, axis=None)


def selected_rows(x):
    return np.partition(x, 1, axis=0) + 0, np.argpartition(x, 2, axis=-1)


def middle(x, k):
    n = x.shape[0]
    return np.partition(x, n // 2)[n // 2] * 1, np.argpartition(x, k, axis=None), x.argpartition(k)


def counted(v):
    return np.bincount(v, minlength=256) * 2


def weighted_counts(flags, w):
    return np.bincount(flags, w, minlength=3) / 2, np.bincount(flags, minlength=2)


def small_counts(v):
    return np.bincount(v, minlength=128) + 1  # int8: a negative value is NumPy's ValueError


def ranked(x, v):
    return x.argsort() + 0, x.argpartition(1), x.searchsorted(v), x.searchsorted(v, side="right")


def sorted_by(x, v, order):
    return x.searchsorted(v, sorter=order) + 0, np.searchsorted(x, v, sorter=order)


RNG = np.random.default_rng(3)
X = RNG.random(9)
CASES = [
    (members, [(RNG.integers(0, 8, 10), np.array([1, 2, 3])), (X * 6, np.array([2.0]))]),
    (members, [(RNG.integers(0, 8, (3, 4)).astype(np.uint8), np.arange(3)), (np.zeros(0), X)]),
    (tabled, [(RNG.integers(0, 8, 10), np.array([1, 2])), (X, np.array([1.0]))]),
    (binned, [(X, np.linspace(0, 1, 5)), (X.astype(np.float32), np.array([0.5, 0.2]))]),
    (binned, [(np.arange(6), np.array([1, 3, 2]))]),  # not monotonic: NumPy's ValueError
    (selected, [(X,), (RNG.integers(-5, 5, 7).astype(np.int16),), (X[::2],)]),
    (selected, [(X[:3],)]),  # kth=3 out of range: NumPy's ValueError, raised by the step
    (selected_rows, [(RNG.random((4, 5)),), (RNG.integers(0, 9, (3, 3)),)]),
    (middle, [(X, 2), (X[:5], -1), (RNG.random(12).astype(np.float32), 11)]),
    (middle, [(X[:4], 4)]),  # k out of range: NumPy's ValueError, from the step
    (counted, [(RNG.integers(0, 256, 50).astype(np.uint8),), (np.zeros(0, np.uint8),)]),
    (weighted_counts, [(RNG.random(8) > 0.5, X[:8]), (np.zeros(3, bool), X[:3])]),
    (weighted_counts, [(np.ones(3, bool), X[:2])]),  # weights of another length: ValueError
    (small_counts, [(RNG.integers(0, 100, 9).astype(np.int8),), (np.array([3, -1], np.int8),)]),
    (ranked, [(np.sort(X), RNG.random(4)), (np.arange(5)[::-1].copy(), 2)]),
    (sorted_by, [(X, RNG.random(3), np.argsort(X))]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, calls", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)]
)
def test_search_steps_give_numpys_results_and_errors(fn, calls, backend):
    assert_same_calls(fn, calls, backend=backend)


@pytest.mark.parametrize(
    "fn, args",
    [
        (members, (RNG.integers(0, 8, 10), np.array([1, 2, 3]))),
        (binned, (X, np.linspace(0, 1, 5))),
        (selected, (X,)),
        (selected_rows, (RNG.random((4, 5)),)),
        (counted, (RNG.integers(0, 256, 50).astype(np.uint8),)),
        (weighted_counts, (RNG.random(8) > 0.5, X[:8])),
        (ranked, (np.sort(X), RNG.random(4))),
        (sorted_by, (X, RNG.random(3), np.argsort(X))),
    ],
)
def test_search_steps_do_not_break_the_region(fn, args):
    report = astcompile.explain(astcompile.compile(fn, backend="c"), *args)
    assert report.graph_break_count == 0, str(report)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_kth_from_sizes_or_arguments_does_not_recompile(backend):
    compiled = astcompile.compile(middle, backend=backend)
    for n, k in ((9, 2), (14, 5), (30, 0)):
        x = RNG.random(n)
        assert_same_calls(middle, [(x, k)], backend=backend)
        compiled(x, k)
    entries = [e for region in compiled.regions for es in region.entries.values() for e in es]
    assert len(entries) == 1


def data_long(v):
    return np.bincount(v, minlength=3) * 2  # int64 values: the data decides the length


def class_means(labels, features, classes):
    counts = np.bincount(labels, minlength=classes)
    means = np.zeros((classes, features.shape[1]))
    for j in range(features.shape[1]):
        means[:, j] = np.bincount(labels, features[:, j], classes) / np.maximum(counts, 1)
    return means, counts


def row_modes(votes, classes):
    out = np.empty(votes.shape[0], dtype=np.int64)
    for i in range(votes.shape[0]):
        out[i] = np.bincount(votes[i], minlength=classes).argmax()
    return out


def weights_counted(v, w):
    return np.bincount(v, w, minlength=4)  # no values: NumPy's int64 zeros, weights or not


LABELS, FEATURES = RNG.integers(0, 6, 30), RNG.random((30, 3))
LOOPED = [
    (data_long, [(np.array([0, 2, 2]),), (np.array([0, 7, 2]),), (np.array([1, -1]),)]),
    (data_long, [(np.array([1, 1], np.int32),), (np.array([4], np.uint16),)]),
    (class_means, [(LABELS, FEATURES, 6), (LABELS, FEATURES, 9), (LABELS, FEATURES, 4)]),
    (class_means, [(LABELS.astype(np.int32), FEATURES.astype(np.float32), 6)]),
    (class_means, [(LABELS[:0], FEATURES[:0], 2), (LABELS - 1, FEATURES, 6)]),
    (row_modes, [(RNG.integers(0, 5, (6, 7)), 5), (RNG.integers(0, 5, (6, 7)), 3)]),
    (weights_counted, [(np.array([1, 0]), X[:2]), (LABELS[:0], X[:0]), (np.zeros(0, bool), X[:0])]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, calls", LOOPED, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(LOOPED)]
)
def test_bincount_compiles_as_numpys_loop(fn, calls, backend):
    """A count by label, in a loop or not, broke the trace (its length depends on the data):
    the region ran as Python. A value past ``minlength`` (NumPy's result is longer) or a
    negative one (NumPy's ValueError) runs the region's statements for that call."""
    assert_same_calls(fn, calls, backend=backend)
    report = astcompile.explain(astcompile.compile(fn, backend=backend), *calls[0])
    assert report.graph_break_count == 0, str(report)


def counts_into(out, v):
    out[0] = 1.0
    return np.bincount(v, minlength=3) + out[0]


def counts_odd(v, w):
    return np.bincount(v, weights=w, minlength=2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bincount_that_cannot_rerun_or_numpy_refuses_runs_numpy(backend):
    """A region that stores into an argument cannot run its statements a second time: there a
    count the data may lengthen still breaks; so do arguments NumPy refuses or decides."""
    assert_same_calls(counts_into, [(np.zeros(2), np.array([0, 7]))], backend=backend)
    report = astcompile.explain(astcompile.compile(counts_into, backend=backend), np.zeros(2), [1])
    assert report.graph_break_count == 1
    odd = [
        (np.array([1, 0], np.uint64), None),
        (np.array([1.0, 0.0]), None),
        (np.array([1, 0]), np.array([1j, 2])),
        (np.array([1, 0]), np.ones(3)),
        (np.ones((2, 2), np.int64), None),
    ]
    assert_same_calls(counts_odd, odd, backend=backend)


def sort_and_sum(x):
    x.sort()
    return x.sum()


def sort_a_copy(x):
    y = x * 2
    y.sort()
    return y, x


def sort_rows(x):
    x[1:].sort(axis=0)
    x.sort(kind="stable")
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args",
    [
        (sort_and_sum, (X.copy(),)),
        (sort_and_sum, (RNG.integers(0, 9, (3, 4)).astype(np.uint16),)),
        (sort_a_copy, (X.copy(),)),
        (sort_rows, (RNG.random((4, 3)),)),
    ],
)
def test_sort_method_sorts_the_callers_array(fn, args, backend):
    """``a.sort()`` writes into the array the caller passed (run_both compares the arguments
    after the call with NumPy's) and returns None, as NumPy does."""
    assert_same(fn, *args, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_method_of_a_read_only_array_raises_numpys_error(backend):
    x = X.copy()
    x.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        sort_and_sum(x)
    with pytest.raises(ValueError, match="read-only"):
        astcompile.compile(sort_and_sum, backend=backend)(x)
    np.testing.assert_array_equal(x, X)


def sort_then_loop(x, out):
    x.sort()
    for i in range(x.shape[0]):
        out[i] = x[i] * 2 + x[-1 - i]
    return out


def gather_in_order(x, out):
    order = np.argsort(x)
    for i in range(x.shape[0]):
        out[i] = x[order[i]] - x[order[0]]
    return out


def write_into_the_sorted(x):
    s = np.sort(x)
    s[0] = -1.0
    x[0] = 7.0
    return s, x


def sort_after_a_store(x):
    x[0] = 0.5
    x.sort()
    return x


def _entries(compiled):
    return [e for region in compiled.regions for es in region.entries.values() for e in es]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args",
    [
        (sort_then_loop, (X.copy(), np.zeros(9))),
        (sort_then_loop, (RNG.integers(0, 50, 6).astype(np.int32), np.zeros(6, np.int32))),
        (sort_then_loop, (X[::2].copy(), np.zeros(5)[::-1])),
        (gather_in_order, (X.copy(), np.zeros(9))),
        (write_into_the_sorted, (X.copy(),)),
        (sort_after_a_store, (X.copy(),)),
        (sort_and_sum, (X.copy(),)),
    ],
)
def test_steps_before_the_stores_of_a_loop_region_run_first(fn, args, backend):
    """A NumPy step of the arguments that comes before every store and loop runs in the
    wrapper, and the region's C function reads its result (structured_plan.hoisted); one
    after a store runs where it is, as written."""
    assert_same(fn, *args, backend=backend)


@pytest.mark.parametrize("fn", [sort_then_loop, gather_in_order, write_into_the_sorted])
def test_a_loop_region_with_a_leading_step_compiles(fn):
    compiled = astcompile.compile(fn, backend="c")
    args = (X.copy(), np.zeros(9))[: fn.__code__.co_argcount]
    report = astcompile.explain(compiled, *args)
    assert report.graph_break_count == 0, str(report)
    compiled(*args)
    (entry,) = _entries(compiled)
    assert "= _fn" in entry.run.py_source and "_lib.region_" in entry.run.py_source
