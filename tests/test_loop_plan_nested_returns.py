"""A ``return`` inside a loop nested in another compiled loop (frontend/loop_plan.py): the inner
loop breaks out, the loop around it returns in turn, and the region returns the value after
the outer loop, from the names as they were at the return."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls

import astcompile


def find_above(grid, level):
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            if grid[i, j] >= level:
                return (i, j, grid[i, j])
    return (-1, -1, 0.0)


def two_sum(values, target):
    n = len(values)
    for i in range(n - 1):
        for j in range(i + 1, n):
            if values[j] == target - values[i]:
                return i, j
    return -1, -1


def first_triple(x, total):
    n = x.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                if x[i] + x[j] + x[k] == total:
                    return i * 100 + j * 10 + k
    return -1


def row_walk(grid, level):
    count = 0
    for i in range(grid.shape[0]):
        if grid[i, 0] >= 0.0:
            for j in range(grid.shape[1]):
                s = grid[i, j] * 2.0
                if s > level:
                    return count, s
            count += 1
        count += 2
    return count, 0.0


CASES = [
    (
        find_above,
        [(np.arange(12.0).reshape(3, 4), 6.5), (np.ones((3, 4)), 5.0), (np.ones((0, 4)), 1.0)],
    ),
    (two_sum, [(np.arange(20.0), 37.0), (np.arange(20.0), 100.0), (np.arange(1.0), 1.0)]),
    (first_triple, [(np.arange(9.0), 21.0), (np.arange(9.0), 99.0), (np.arange(2.0), 1.0)]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, calls", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_return_in_a_nested_loop_compiles_both_loops(backend, fn, calls):
    """Before, both loops ran in Python (the return could not end a loop nested in a compiled
    one); now the function is one compiled region and gives the plain answer and types."""
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    compiled(*calls[0])
    assert compiled.python_loops == set() and len(compiled.regions) == 1
    assert compiled.regions[0].stats.compiled_calls > 0


def returns_a_row(grid, level):
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            row = grid[i] * 2.0
            if row[j] > level:
                return row
    return grid[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_nested_return_of_an_array_made_in_the_loop_gives_the_plain_answer(backend):
    """An array only the return reads has no start value to make: the region runs its
    statements as written, with the same result."""
    calls = [(np.arange(6.0).reshape(2, 3), 5.0), (np.ones((2, 3)), 9.0)]
    assert_same_calls(returns_a_row, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_nested_return_under_an_if_with_code_after_gives_the_plain_answer(backend):
    """The loop holding the return sits in an ``if`` with statements after it (it still
    runs in Python there: a gap left for later); the answer is the plain one."""
    calls = [(np.arange(12.0).reshape(4, 3) - 3.0, 11.0), (np.ones((3, 3)), 9.0)]
    assert_same_calls(row_walk, calls, backend=backend)


def break_then_return(x, t):
    j = 0
    for i in range(x.shape[0]):
        if x[i, 0] < -5:
            break
        for j in range(x.shape[1]):
            if x[i, j] > t:
                return i, j
    return -1, -1


def return_under_if(x, t):
    j = 0
    s = 0.0
    for i in range(x.shape[0]):
        if x[i, 0] > -5:
            for j in range(x.shape[1]):
                s = x[i, j] * 2.0
                if s > t:
                    return i, j, s
    return -1, -1, 0.0


def while_around(x, t):
    i = 0
    while i < x.shape[0]:
        for j in range(x.shape[1]):
            if j > 0 and x[i, j] == x[i, j - 1]:
                continue
            if x[i, j] > t:
                return i * 1000 + j
        i += 1
    return -1


def grows_past_int64(x, t):
    acc = 1
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            acc = acc * 3 + 1
            if x[i, j] > t:
                return acc
    return acc


def unbound_names_behind_a_break(x, t):
    i = 0
    while i < x.shape[0] and x[i, 0] >= -5:
        if i >= 0:
            for j in range(x.shape[1]):
                if x[i, j] > t:
                    return i, j
        i += 1
    return -1, -1


GRIDS = [
    np.arange(20.0).reshape(4, 5),
    np.where(np.arange(20).reshape(4, 5) == 10, -9.0, np.arange(20.0).reshape(4, 5)),
    np.ones((0, 5)),
    np.ones((8, 50)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, compiles",
    [
        (break_then_return, False),  # gaps: the plain answer, loops in Python
        (return_under_if, False),
        (while_around, True),
        (grows_past_int64, True),  # a Python int past int64 runs the statements as written
        (unbound_names_behind_a_break, False),  # `j` unbound, passed by an `if`: a gap
    ],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_nested_returns_with_jumps_ifs_and_python_ints(backend, fn, compiles):
    """A nested return in a ``while``, and one returning a Python int past int64 (its exact
    value: the statements run as written), compile; after a ``break`` or under an ``if`` the
    loops still run in Python (a gap), with the plain answer."""
    calls = [(g, t) for g in GRIDS for t in (12.5, 1.5, 99.0)]
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    compiled(GRIDS[0], 12.5)
    regions = compiled.regions
    native = not compiled.python_loops and len(regions) == 1
    assert (native and regions[0].stats.compiled_calls > 0) is compiles
