"""List comprehensions of array work compile as one loop (frontend/comprehensions.py): not one
copy of the line per item, so many items neither pass the per-line budget (GB021) nor slow
the first call; the list keeps Python's item types, the loop variable does not leak."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same_calls, assert_same_signs, target_mode

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


# -- sum/max/min/any/all of a generator or comprehension: one loop with an accumulator --------


def ssd(a, b):
    return sum((a[i] - b[i]) ** 2 for i in range(a.shape[0]))


def biggest_window(x, w):
    return max(x[i : i + w].sum() for i in range(len(x) - w + 1))


def smallest_row(a):
    return min([a[i].min() for i in range(a.shape[0])])


def any_neg(rows):
    return any(rows[i].min() < 0 for i in range(rows.shape[0]))


def all_pos(rows):
    return all(rows[i].min() > 0 for i in range(rows.shape[0]))


def any_past_the_end(x, n):
    return any(x[i] > 5 for i in range(n))


def started_sum(x):
    return sum((x[i] * 2 for i in range(len(x))), 10)


def mean_square(x):
    m = sum(x[i] * x[i] for i in range(len(x)) if x[i] > 0) / len(x)
    return m


def mean_of_squares(x):
    return sum(x[i] * x[i] for i in range(len(x))) / len(x)


def longest(rows):
    return max(len(rows[i]) for i in range(len(rows)))


def first_extreme(x):
    return max(x[i] for i in range(len(x))), min(x[i] for i in range(len(x)))


def per_row_max(a):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        m = max(a[j, i] * 2.0 for i in range(a.shape[1]))
        out[j] = m
    return out


def count_positive(x):
    return sum(x[i] > 0 for i in range(len(x)))


def any_negative_nonzero(x):
    return any(x[i] < 0 for i in range(len(x)) if x[i] != 0)


def tenths(xs):
    return sum(xs[i] * 0.1 for i in range(len(xs)))


def keyed(x):
    return max((x[i] for i in range(len(x))), key=abs)


NAN = np.nan
FOLDED = {
    ssd: [(np.arange(300.0), np.ones(300)), (np.ones(0), np.ones(0)), (np.arange(9), np.ones(9))],
    biggest_window: [(np.sin(np.arange(200.0)), 5), (np.arange(3.0), 5), (np.arange(6), 2)],
    smallest_row: [(np.arange(60.0).reshape(20, 3) - 7,), (np.ones((0, 3)),)],
    any_neg: [(np.ones((40, 3)),), (np.ones((40, 3)) - np.eye(40, 3) * 2,), (np.ones((0, 3)),)],
    all_pos: [(np.ones((40, 3)),), (np.ones((40, 3)) - np.eye(40, 3) * 2,), (np.ones((0, 3)),)],
    any_past_the_end: [(np.arange(10.0), 20), (np.arange(10.0) - 100, 20)],
    started_sum: [(np.arange(30.0),), (np.arange(0.0),), (np.arange(30),), ([0.5, 1.5],)],
    mean_square: [(np.linspace(-1.0, 1.0, 41),), (np.arange(5, dtype=np.float32),)],
    mean_of_squares: [(np.linspace(-1.0, 1.0, 41),), (np.arange(5, dtype=np.float32),)],
    longest: [([np.ones(3), np.ones(5), np.ones(2)],)],
    first_extreme: [
        (np.array([NAN, 1.0, 2.0]),),
        (np.array([1.0, NAN, 0.5]),),
        (np.array([-0.0, 0.0, -1.0]),),
        (np.array([0.0, -0.0, 1.0]),),
        (np.arange(12, dtype=np.int32),),
    ],
    per_row_max: [(np.arange(60.0).reshape(5, 12),)],
    keyed: [(np.arange(-5.0, 3.0),)],
    count_positive: [(np.arange(-5.0, 30.0),), (np.ones(0),)],
    any_negative_nonzero: [(np.zeros(30),), (np.arange(-3.0, 30.0),)],
    tenths: [([0.1] * 30,), ([],)],
}
#: Folds of many items that are one loop now (GB021 before: a copy of the line per item).
#: ``mean_square`` is not: its ``sum`` is the int 0 where no item passes the ``if``.
FOLD_LOOPS = {
    ssd: (np.arange(300.0), np.ones(300)),
    biggest_window: (np.sin(np.arange(200.0)), 5),
    first_extreme: (np.sin(np.arange(200.0)),),
    smallest_row: (np.arange(600.0).reshape(200, 3),),
    any_neg: (np.ones((100, 3)),),
    all_pos: (np.ones((100, 3)),),
    mean_of_squares: (np.linspace(-1.0, 1.0, 401),),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", list(FOLDED), ids=lambda f: f.__name__)
def test_folds_give_pythons_results(fn, backend):
    assert_same_calls(fn, FOLDED[fn], backend)


@pytest.mark.parametrize("fn", list(FOLD_LOOPS), ids=lambda f: f.__name__)
def test_a_fold_of_many_items_is_one_loop(fn):
    report = astcompile.explain(astcompile.compile(fn, backend="c"), *FOLD_LOOPS[fn])
    assert report.graph_break_count == 0, str(report)
    assert max(report.ops_per_graph) < 60, report.ops_per_graph


def test_folds_keep_pythons_types_ties_and_nans():
    """``sum`` starts from int 0, ``any`` gives a bool, ``max`` keeps the first of equal items
    (``-0.0`` before ``0.0``) and compares with ``>`` as CPython does (a NaN first stays)."""
    compiled = {f: astcompile.compile(f, backend="c") for f in (ssd, any_neg, first_extreme)}
    assert type(compiled[ssd](np.arange(40.0), np.ones(40))) is np.float64
    got = compiled[ssd](np.ones(0), np.ones(0))
    assert got == 0 and type(got) is int
    assert compiled[any_neg](np.ones((30, 2))) is False
    for x in ([-0.0, 0.0], [0.0, -0.0], [NAN, 1.0], [1.0, NAN, 3.0]):
        got, expected = compiled[first_extreme](np.array(x)), first_extreme(np.array(x))
        assert_same_signs(got, expected)
        assert np.array_equal(got, expected, equal_nan=True)


def test_an_empty_max_raises_pythons_error():
    compiled = astcompile.compile(biggest_window, backend="c")
    compiled(np.arange(50.0), 3)
    with pytest.raises(ValueError, match=r"^max\(\) arg"):
        compiled(np.arange(2.0), 3)


def test_a_name_that_is_not_the_builtin_is_left_alone(tmp_path, monkeypatch):
    """``from numpy import *`` binds ``any`` to ``np.any``, which is true of any generator."""
    (tmp_path / "star_user.py").write_text(
        "from numpy import *\n\n\n"
        "def any_neg(rows):\n"
        "    return any(rows[i].min() < 0 for i in range(rows.shape[0]))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    star_user = importlib.import_module("star_user")
    assert_same_calls(star_user.any_neg, [(np.ones((30, 2)),), (np.ones((30, 2)),)], "c")


@pytest.mark.parametrize("backend", TRITON)
def test_folds_on_triton(backend):
    with target_mode(backend):
        assert_same_calls(ssd, FOLDED[ssd][:1], backend)
        assert_same_calls(any_neg, FOLDED[any_neg][:2], backend)
