"""Lists a loop appends to (trace/growing_lists.py): ``out = []`` and ``out.append(v)`` in a
``for`` loop compile to a buffer and a length; the list handed back holds Python's own number
types, an index past the length raises IndexError, and what does not fit runs as written."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from differential import assert_same_calls

import astcompile
from bench.programs.list_prefix_sums import list_prefix_sums
from bench.programs.running_max_list import running_max_list


def positives(xs):
    out = []
    for x in xs:
        if x > 0:
            out.append(x)
    return out


def both_signs(xs):
    out = []
    for x in xs:
        out.append(x)
        out.append(-x)
    return out


def decaying(xs):
    out = [1.0]
    for x in xs:
        out.append(out[-1] * 0.5 + x)
    return out


def counted(xs):
    seen = []
    for i in range(len(xs)):
        seen.append(len(seen) + i)
    return seen, len(seen)


def signs(xs):
    flags = []
    for x in xs:
        flags.append(x > 0)
    return flags


def halves_into_ints(xs):
    out = [0]
    for x in xs:
        out.append(x * 0.5)  # Python's list then holds an int and floats
    return out


def sum_after(xs):
    sq = []
    for x in xs:
        sq.append(x * x)
    total = 0.0
    for v in sq:
        total += v
    return total, sq


def fifth(xs):
    out = []
    for x in xs:
        out.append(x + 1.0)
    return out[5]


def pairs(xs):
    out = []
    for i in range(len(xs)):
        for j in range(i):
            out.append(xs[i] * xs[j])
    return out


def counting_to(n):
    out = []
    for i in range(n):
        out.append(i * 2)
    return out


def appends_in_a_branch_of_a_loop(x):
    picked = []
    acc = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            acc = acc + x[i]
            picked.append(i)
    return acc, picked


def extended_pairs(xs):
    out = []
    for x in xs:
        out.extend([x, x * x])
    return out


def extended_in_a_branch(xs):
    out = [0.5]
    for i in range(len(xs)):
        if xs[i] > 0.0:
            out.extend((xs[i], -xs[i]))
        out.extend([])
    return out


def extended_with_an_int_first(xs):
    out = []
    for x in xs:
        out.extend([1, x])  # Python's list then holds ints and floats: runs as written
    return out


def extended_by_a_range(xs):
    out = []
    for x in xs:
        out.extend(range(2))  # not a list or tuple display: runs as written
        out.append(x)
    return out


def _floats(n, seed=0):
    rng = random.Random(seed)
    return [rng.uniform(-2, 2) for _ in range(n)]


CALLS = {
    list_prefix_sums: [([1, -2, 3],), (list(range(-50, 70)),), ([5],), ([],)],
    running_max_list: [([100.0, 101.5, 99.0, 98.0, 103.0],), ([1.0 + i for i in range(30)],)],
    positives: [(_floats(40),), ([-1.0, -2.0],), ([3.0],)],
    both_signs: [(_floats(9, 1),), ([1, 2, 3],)],
    decaying: [(_floats(20, 2),), ([0.5],)],
    counted: [([1.0] * 7,), ([2.0],)],
    signs: [(_floats(12, 3),)],
    halves_into_ints: [([1.0, 2.0],), ([4.0, -3.0, 0.25],)],
    sum_after: [(_floats(15, 4),), ([2.0],)],
    fifth: [(_floats(9, 5),), (_floats(5, 6),), ([1.0, 2.0],)],
    pairs: [(_floats(6, 7),), ([1.0, 2.0],)],
    counting_to: [(5,), (0,), (12,)],
    appends_in_a_branch_of_a_loop: [(np.array([1.0, -2.0, 3.0, 4.0, -1.0, 2.0]),), (np.zeros(3),)],
    extended_pairs: [(_floats(11, 8),), ([2, 3],), ([],)],
    extended_in_a_branch: [(_floats(13, 9),), ([-1.0],), ([],)],
    extended_with_an_int_first: [(_floats(4, 10),)],
    extended_by_a_range: [(_floats(4, 11),)],
}


@pytest.mark.parametrize("fn", list(CALLS), ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["eager", "c"])
def test_lists_grown_by_a_loop_give_pythons_results(fn, backend):
    assert_same_calls(fn, CALLS[fn], backend=backend)


@pytest.mark.parametrize(
    "fn, args",
    [
        (list_prefix_sums, (list(range(-20, 30)),)),
        (running_max_list, ([100.0, 101.5, 99.0, 98.0, 103.0],)),
        (positives, (_floats(40),)),
        (both_signs, (_floats(9, 1),)),
        (decaying, (_floats(20, 2),)),
        (counted, ([1.0] * 7,)),
        (signs, (_floats(12, 3),)),
        (sum_after, (_floats(15, 4),)),
        (fifth, (_floats(9, 5),)),
        (appends_in_a_branch_of_a_loop, (np.array([1.0, -2.0, 3.0, 4.0, -1.0, 2.0]),)),
        (extended_pairs, (_floats(11, 8),)),
        (extended_in_a_branch, (_floats(13, 9),)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_loops_appending_to_a_list_compile(fn, args):
    compiled = astcompile.compile(fn, backend="c")
    compiled(*copy.deepcopy(args))
    report = astcompile.explain(compiled, *copy.deepcopy(args))
    assert report.graph_break_count == 0, str(report)


def evens_as_array(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] % 2 == 0:
            out.append(x[i] * 2)
    return np.array(out), np.sum(out)


def test_an_empty_grown_list_is_a_float64_array_as_numpy_makes_it():
    """``np.array([])`` is float64 whatever the loop would have appended: an entry traced on
    a list of int64 items gave an int64 array (and an int sum) when no item came."""
    calls = [(np.arange(6),), (np.array([1, 3]),), (np.arange(4),), (np.array([5]),)]
    assert_same_calls(evens_as_array, calls, backend="eager")
    compiled = astcompile.compile(evens_as_array, backend="eager")
    compiled(np.arange(6))
    assert astcompile.explain(compiled, np.arange(8)).graph_break_count == 0


def test_grown_lists_hold_pythons_number_types():
    ints = astcompile.compile(list_prefix_sums, backend="c")([1, 2, 3])
    assert ints == [1, 3, 6] and all(type(v) is int for v in ints)
    flags = astcompile.compile(signs, backend="c")([1.0, -1.0])
    assert flags == [True, False] and all(type(v) is bool for v in flags)


def inner_sums(a, n):
    out = []
    for i in range(a.shape[0]):
        s = 0.0  # a Python float where the inner loop runs zero times, else a NumPy float64
        for k in range(n):
            s += a[k]
        out.append(s)
    return out


def test_an_item_whose_type_the_running_code_decides_keeps_pythons_type():
    """A union (trace/unions.py) has no one Python type: the list held the np.float64 where
    Python's held ``0.0`` (``n`` 0); the appending loop runs as written."""
    a = np.linspace(0.0, 1.0, 4)
    for backend in ("eager", "c"):
        assert_same_calls(inner_sums, [(a, 2), (a, 0), (a, 3)], backend=backend)


def test_an_index_past_the_length_raises_even_within_the_buffer():
    """The buffer holds room for every iteration's append; Python's list only what was
    appended: out[5] of a five-item list is an IndexError, not a stale slot."""
    compiled = astcompile.compile(fifth, backend="c")
    assert compiled([1.0] * 8) == 2.0
    with pytest.raises(IndexError):
        compiled([1.0] * 5)


def test_a_new_length_does_not_recompile():
    compiled = astcompile.compile(list_prefix_sums, backend="c")
    for n in (3, 9, 40, 41, 300):
        assert compiled(list(range(n))) == list_prefix_sums(list(range(n)))
    assert compiled.regions[0].stats.traces <= 1  # none where an earlier test's entry is found


def powers_to(x, n):
    out = []
    for i in range(1, n, 2):
        out.append(x**i / i)  # x float: float items; x an int: floats too (true division)
    return out


RANGE_CALLS = {
    counting_to: [(5,), (16,), (17,), (-2,), (0,), (70,), (3,)],
    powers_to: [(0.5, 9), (2, 40), (1.5, 100), (0.5, 3)],
}


@pytest.mark.parametrize("fn", list(RANGE_CALLS), ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["eager", "c"])
def test_a_loop_to_an_int_argument_grows_its_list_compiled(fn, backend):
    """``for i in range(n): out.append(...)`` with ``n`` an argument ran as written (GB012):
    ``n`` was no size for the buffer. Now room for the power of two at or above ``n``, under a
    guard that ``n`` is at most that: a new ``n`` below it reuses the entry."""
    calls = RANGE_CALLS[fn]
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    report = astcompile.explain(compiled, *calls[0])
    assert report.graph_break_count == 0, str(report)
    for n in (2, 9, 16):
        compiled(*calls[0][:-1], n)
    assert compiled.regions[0].stats.traces <= 1


def weighted(xs):
    w = [0.25, 0.5, 0.25]
    s = 0.0
    for i in range(len(xs)):
        s += w[i % 3] * xs[i]
    a, b, c = w  # a list no loop appends to keeps its length: it unpacks
    return s, a + b + c


def test_a_list_no_loop_appends_to_keeps_its_length():
    assert_same_calls(weighted, [([1.0, 2.0, 3.0, 4.0],), ([0.5],)], backend="c")
    compiled = astcompile.compile(weighted, backend="c")
    report = astcompile.explain(compiled, [1.0, 2.0])
    assert report.graph_break_count == 0, str(report)


def extend_given(out, xs):
    for x in xs:
        out.append(x * 2.0)
    return out


def test_a_list_passed_in_that_grows_runs_as_written():
    out = [1.0]
    compiled = astcompile.compile(extend_given, backend="c")
    assert compiled(out, [1.0, 2.0]) is out and out == [1.0, 2.0, 4.0]
    report = astcompile.explain(compiled, [1.0], [1.0, 2.0])
    assert any("grows a list it was given" in r.detail for r in report.break_reasons), report
