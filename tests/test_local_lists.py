"""Lists a region makes (trace/local_lists.py): ``[0.0] * n`` and comprehensions of rows become
typed buffers that loops store into natively, handed back as Python lists of Python's own
number types; anything else runs as written, with Python's answers."""

from __future__ import annotations

import copy

import pytest
from differential import assert_same_calls

import astcompile
from bench.programs.lcs_length import lcs_length
from bench.programs.list_matmul import list_matmul
from bench.programs.poly_mul_lists import poly_mul_lists


def halves(n):
    out = [0.0] * n
    for i in range(n):
        out[i] = i * 0.5
    return out


def halves_of(xs):
    out = [0.0] * len(xs)
    for i in range(len(xs)):
        out[i] = xs[i] * 0.5
    return out


def counts(xs, k):
    seen = [0] * (k + 1)
    for x in xs:
        seen[x % (k + 1)] += 1
    return seen


def grid(n, m):
    c = [[0.0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            c[i][j] = i + 0.25 * j
    return c


def int_grid(n):
    t = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            t[i][j] = i * j - j
    return t


def filled_with(x, n):
    out = [x] * n
    for i in range(1, n):
        out[i] = out[i - 1] * 0.5 + x
    return out


def four():
    out = [0.0] * 4
    for i in range(4):
        out[i] = i * 1.5
    return out


def marks(n):
    flags = [False] * n
    for i in range(0, n, 3):
        flags[i] = True
    return flags


def floats_into_ints(n):
    out = [0] * n
    for i in range(n):
        out[i] = i * 0.5  # Python's list then holds floats
    return out


def past_the_end(n):
    out = [0.0] * n
    for i in range(n + 1):
        out[i] = 1.0
    return out


def twice(n):
    out = [1.0] * n
    for i in range(n):
        out[i] += i
    return out, out


def mixed(n):
    out = [0, 0.5] * n
    for i in range(len(out)):
        out[i] = out[i] + i
    return out


def big_ints(n):
    out = [0] * n
    for i in range(n):
        out[i] = (2**62) * i
    return out


def rolling(xs, n):
    a = [0.0] * len(xs)
    b = [0.0] * len(xs)
    for _ in range(n):
        for i in range(len(xs)):
            b[i] = a[i] * 0.5 + xs[i]
        a, b = b, a
    return a


def last_rows(n, m):
    prev = [0] * m
    cur = prev
    for i in range(n):
        cur = [0] * m
        for j in range(m):
            cur[j] = prev[j] + i * j
        prev = cur
    return prev, cur  # one list, twice


def resized(n):
    row = [0.0] * 2
    for i in range(n):
        row = [1.0] * (i + 2)  # another length each time: runs as written
    return row


def pair_sums(xs):
    out = [0.0] * (len(xs) - 2)  # negative for short lists: Python's []
    for i in range(len(out)):
        out[i] = xs[i] + xs[i + 1]
    return out


CALLS = {
    halves: [(0,), (1,), (7,), (50,)],
    halves_of: [([1.0, 2.0, -3.5],), ([0.25] * 40,), ([],)],
    counts: [([1, 5, 7, 9, 2], 3), (list(range(30)), 6)],
    grid: [(3, 4), (5, 5), (1, 2)],
    int_grid: [(4,), (6,)],
    filled_with: [(2.0, 6), (-1.5, 1), (0.5, 30)],
    four: [()],
    marks: [(10,), (1,), (33,)],
    floats_into_ints: [(5,), (9,)],
    past_the_end: [(3,), (0,)],
    twice: [(4,), (7,)],
    mixed: [(3,), (5,)],
    big_ints: [(2,), (3,), (5,)],
    poly_mul_lists: [([1.0, 2.0, 3.0], [0.5, -1.0]), ([0.25] * 9, [2.0] * 4)],
    pair_sums: [([1.0] * 5,), ([1.0, 2.0, 3.0],), ([1.0, 2.0],), ([1.0],), ([2.0] * 7,)],
    lcs_length: [([1, 2, 3, 2, 1], [2, 3, 1, 2]), ([5] * 6, [5, 4, 5]), ([1], [2])],
    rolling: [([1.0, 2.0, 3.0], 4), ([0.5] * 5, 0), ([2.0], 7)],
    last_rows: [(3, 4), (0, 2), (1, 3)],
    resized: [(3,), (0,)],
    list_matmul: [
        ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[1.0, 0.0, 2.0], [0.5, 1.0, -1.0]]),
        ([[0.5] * 4 for _ in range(3)], [[1.5] * 3 for _ in range(4)]),
    ],
}


@pytest.mark.parametrize("fn", list(CALLS), ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["eager", "c"])
def test_lists_made_in_the_region_give_pythons_results(fn, backend):
    assert_same_calls(fn, CALLS[fn], backend=backend)


@pytest.mark.parametrize(
    "fn, args",
    [
        (halves, (20,)),
        (halves_of, ([1.0, 2.0, 3.0],)),
        (counts, ([1, 5, 7, 9, 2], 3)),
        (grid, (3, 4)),
        (int_grid, (5,)),
        (filled_with, (2.0, 6)),
        (four, ()),
        (marks, (10,)),
        (poly_mul_lists, ([1.0, 2.0, 3.0], [0.5, -1.0])),
        (list_matmul, ([[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [0.5, 1.0]])),
        (lcs_length, ([1, 2, 3, 2, 1], [2, 3, 1, 2])),
        (rolling, ([1.0, 2.0, 3.0], 4)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_loops_over_lists_made_in_the_region_compile(fn, args):
    compiled = astcompile.compile(fn, backend="c")
    compiled(*copy.deepcopy(args))
    report = astcompile.explain(compiled, *copy.deepcopy(args))
    assert report.graph_break_count == 0, str(report)


def test_returned_lists_hold_pythons_number_types():
    got = astcompile.compile(int_grid, backend="c")(4)
    assert type(got) is list and all(type(row) is list for row in got)
    assert all(type(v) is int for row in got for v in row)
    assert all(type(v) is float for v in astcompile.compile(halves, backend="c")(5))
    assert all(type(v) is bool for v in astcompile.compile(marks, backend="c")(7))


def test_one_list_under_two_names_stays_one_list():
    first, second = astcompile.compile(twice, backend="c")(5)
    assert first is second and first == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_one_list_carried_under_two_names_stays_one_list():
    prev, cur = astcompile.compile(last_rows, backend="c")(3, 4)
    assert prev is cur and prev == last_rows(3, 4)[0]


def test_rows_are_new_lists_at_every_call():
    compiled = astcompile.compile(grid, backend="c")
    a, b = compiled(2, 3), compiled(2, 3)
    assert a == b and a is not b and a[0] is not b[0] and a[0] is not a[1]


def test_a_new_length_of_a_size_does_not_recompile():
    compiled = astcompile.compile(halves_of, backend="c")
    for n in (5, 9, 40, 41):
        assert compiled([1.0] * n) == [0.5] * n
    assert compiled.regions[0].stats.traces <= 1  # none where an earlier test's entry is found
