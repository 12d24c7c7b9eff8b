"""List comprehensions of array work compile as one loop (frontend/comprehensions.py): not one
copy of the line per item, so many items neither pass the per-line budget (GB021) nor slow
the first call; the list keeps Python's item types, the loop variable does not leak."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same_calls, target_mode

import astcompile


def window_means(x, k):
    return [x[i : i + k].mean() for i in range(len(x) - k + 1)]


def row_sums(a):
    return [a[i].sum() for i in range(a.shape[0])]


def odd_window_maxima(x):
    w = [x[i : i + 3].max() for i in range(len(x) - 2) if i % 2 if x[i] > 0]
    return w, len(w)


def as_array(x):
    return np.array([x[i : i + 2].sum() for i in range(len(x) - 1)])


def keeps_its_own_i(x):
    i = -1
    means = [x[i : i + 2].mean() for i in range(x.shape[0] - 1)]
    return means, i


def pairs(x, y):
    return [a * b + x[0] for a, b in zip(x, y)]


def indexed(x):
    return [x[: j + 1].sum() * v for j, v in enumerate(x)]


def scaled_items(x):
    return [x[i] * 2.0 + 1.0 for i in range(len(x))]


def int_rows(a):
    return [a[i].sum() for i in range(a.shape[0])]


def few(x):
    return [x[i:].sum() for i in range(3)]


def prefix_sums(x, n):
    return [x[:i].sum() for i in range(n)]


def raises_midway(x, n):
    return [x[i] for i in range(n)]


def doubled_rows(a):
    r = [a[i] * 2 for i in range(a.shape[0])]
    return r[0] + r[-1]


def item_pairs(x):
    return [(x[i], x[i] + 1) for i in range(len(x))]


def from_a_list(xs):
    return [xs[i] * 2.0 for i in range(len(xs))]


def inside_a_loop(a):
    out = []
    for j in range(a.shape[0]):
        out.append(sum([a[j, i] * 2 for i in range(a.shape[1])]))
    return out


def over_an_iterator(x, it):
    return [x[v:].sum() for v in it]


def over_dict_keys(x, d):
    return [x[d[k] :].sum() for k in d]


def over_a_list_of_arrays(arrays):
    return [a.sum() for a in arrays]


def summed(a):
    return sum([a[i].sum() for i in range(a.shape[0])])


def summed_later(a):
    w = [a[i].sum() for i in range(a.shape[0])]
    return sum(w)


def few_as_array(x):
    return np.array([x[i : i + 4].mean() for i in range(len(x) - 3)])


def few_scaled_later(x):
    m = [x[i : i + 4].mean() for i in range(len(x) - 3)]
    return np.array(m) * 2


#: Items the loop's list cannot hold (rows, tuples), or a list that sum() iterates in Python or
#: np.array() makes an array of (no target lowers an array of a grown list's run-time length):
#: the trace copies the line per item, as before the comprehension was a loop (under the
#: budget it still compiles).
UNROLLED = [doubled_rows, item_pairs, summed, summed_later, few_as_array, few_scaled_later]

CALLS = {
    doubled_rows: [(np.ones((4, 3)),), (np.arange(6.0).reshape(2, 3),)],
    item_pairs: [(np.arange(5.0),)],
    summed: [(np.ones((4, 3)),)],
    summed_later: [(np.arange(12.0).reshape(4, 3),)],
    few_as_array: [(np.arange(14.0),)],
    few_scaled_later: [(np.arange(14.0),)],
    from_a_list: [([1.0, 2.5, 3.0],), ([],)],
    over_dict_keys: [(np.arange(10.0), {f"k{i}": i for i in range(12)})],
    over_a_list_of_arrays: [([np.arange(float(i)) for i in range(20)],)],
    inside_a_loop: [(np.arange(60.0).reshape(5, 12),)],
    window_means: [(np.arange(60.0) ** 1.5, 5), (np.arange(40.0), 7), (np.arange(3.0), 5)],
    row_sums: [(np.ones((64, 9)),), (np.arange(12.0).reshape(4, 3),), (np.ones((0, 3)),)],
    odd_window_maxima: [(np.sin(np.arange(50.0)),), (np.zeros(4),)],
    as_array: [(np.arange(30.0),)],
    keeps_its_own_i: [(np.arange(30.0),), (np.arange(1.0),)],
    pairs: [(np.arange(20.0), np.arange(25.0) / 3)],
    indexed: [(np.linspace(0.0, 1.0, 33),)],
    scaled_items: [(np.arange(300.0),), (np.arange(5.0),)],
    int_rows: [(np.arange(60).reshape(20, 3),)],
    few: [(np.arange(6.0),)],
    prefix_sums: [(np.arange(9.0), 5), (np.arange(9.0), 7), (np.arange(9.0), 0)],
    raises_midway: [(np.arange(20.0), 10), (np.arange(20.0), 25)],
}
LOOPS = [window_means, row_sums, odd_window_maxima, keeps_its_own_i, scaled_items, int_rows]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", list(CALLS), ids=lambda f: f.__name__)
def test_comprehensions_give_pythons_results(fn, backend):
    assert_same_calls(fn, CALLS[fn], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_iterator_is_taken_once(backend):
    """Iterators and generators passed in are consumed once, item by item, as Python does."""
    x = np.arange(10.0)
    compiled = astcompile.compile(over_an_iterator, backend=backend)
    for _ in range(3):
        assert compiled(x, iter([1, 2, 3])) == over_an_iterator(x, iter([1, 2, 3]))
        assert compiled(x, (i for i in range(4))) == over_an_iterator(x, (i for i in range(4)))


@pytest.mark.parametrize("fn", LOOPS, ids=lambda f: f.__name__)
def test_a_comprehension_of_many_items_is_one_loop(fn):
    """One graph of a few ops, no break: before, each item was a copy of the line (GB021 past
    12 reductions, and the region ran as written)."""
    args = CALLS[fn][0]
    report = astcompile.explain(astcompile.compile(fn, backend="c"), *args)
    assert report.graph_break_count == 0, str(report)
    assert max(report.ops_per_graph) < 40, report.ops_per_graph


@pytest.mark.parametrize("fn", UNROLLED, ids=lambda f: f.__name__)
def test_items_a_loop_cannot_hold_still_compile_unrolled(fn):
    report = astcompile.explain(astcompile.compile(fn, backend="c"), *CALLS[fn][0])
    assert report.graph_break_count == 0, str(report)


def test_the_list_holds_numpy_scalars_as_python_does():
    got = astcompile.compile(window_means, backend="c")(np.arange(30.0), 4)
    assert type(got) is list and all(type(v) is np.float64 for v in got)
    ints = astcompile.compile(int_rows, backend="c")(np.arange(60).reshape(20, 3))
    assert all(type(v) is np.int64 for v in ints)


def test_a_new_window_length_is_guarded():
    """The list's buffer is sized by ``len(x) - k + 1`` with ``k``'s value guarded: a smaller
    ``k`` (more windows) must not reuse the buffer sized for the larger one."""
    compiled = astcompile.compile(window_means, backend="c")
    x = np.arange(100.0)
    for k in (9, 1, 50, 9):
        assert compiled(x, k) == window_means(x, k)


@pytest.mark.parametrize("backend", TRITON)
def test_comprehensions_on_triton(backend):
    with target_mode(backend):
        assert_same_calls(row_sums, CALLS[row_sums][:2], backend)
