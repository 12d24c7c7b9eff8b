"""sum/max/min/any/all of a generator or list comprehension compile as one loop with an
accumulator (frontend/folds.py, frontend/comprehensions.py): not one copy of the line per item
(GB021 past the per-line budget, and the region ran plain), with Python's result to the bit and
the type: sum from the int 0 in order, max/min keeping the first of equal items and comparing
as CPython does (NaN, -0.0), Python's ValueError for no items, any/all stopping at the item
that decides."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same_calls, assert_same_signs, target_mode

import astcompile


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


def root_sum_square(x):
    return math.sqrt(sum(x[i] ** 2 for i in range(len(x))))


def count_above(x, t):
    n = sum(1 for i in range(len(x)) if x[i] > t)
    return n


def per_row_max_of_first(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        m = max(a[j, i] for i in range(k))
        out[j] = m
    return out


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
    per_row_max: [(np.arange(60.0).reshape(5, 12),), (np.ones((3, 0)),), (np.ones((0, 4)),)],
    per_row_max_of_first: [(np.arange(60.0).reshape(5, 12), 7), (np.ones((3, 4)), 0)],
    keyed: [(np.arange(-5.0, 3.0),)],
    count_positive: [(np.arange(-5.0, 30.0),), (np.ones(0),)],
    any_negative_nonzero: [(np.zeros(30),), (np.arange(-3.0, 30.0),)],
    tenths: [([0.1] * 30,), ([],)],
    root_sum_square: [(np.arange(50.0),), (np.ones(0),)],
    count_above: [(np.arange(50.0), 20.0), (np.arange(50.0), 99.0)],
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
    root_sum_square: (np.arange(300.0),),
    per_row_max: (np.arange(600.0).reshape(3, 200),),
    count_above: (np.arange(300.0), 100.0),
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
