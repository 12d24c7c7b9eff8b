"""Python ints as sums of traced ints (trace/int_sums.py): the difference of two sums cancels
what they share, so a loop over ``range(i, j)`` with ``j = i + length - 1`` is known to run."""

from __future__ import annotations

import pytest
from differential import BACKENDS, assert_same_calls, target_mode

import astcompile
from astcompile.ir.ops import Op
from astcompile.trace import int_sums as sums
from bench.programs.matrix_chain import matrix_chain


class _Atom:
    """A traced int as the sums see it: an id, and bounds the test gives."""

    def __init__(self, key, bounds):
        self.key, self.bounds = key, bounds


def _atom(key, bounds):
    atom = _Atom(key, bounds)
    return atom, (0, {key: (1, atom)})


def test_shared_atoms_cancel_and_the_rest_give_the_least_difference():
    i, i_sum = _atom(1, (0, 100))
    length, length_sum = _atom(2, (2, 50))
    j_sum = sums.combine(sums.combine(i_sum, length_sum, 1), (1, {}), -1)  # i + length - 1
    assert j_sum == (-1, {1: (1, i), 2: (1, length)})
    difference = sums.combine(j_sum, i_sum, -1)
    assert difference == (-1, {2: (1, length)})
    bounds = lambda atom: atom.bounds
    holder = type("H", (), {})
    stop, start = holder(), holder()
    stop.int_sum, start.int_sum = j_sum, i_sum
    assert sums.lowest_difference(stop, start, bounds) == 1  # length - 1 >= 1
    assert sums.lowest_difference(start, stop, bounds) == 1 - 50  # a negative coefficient
    assert sums.lowest_difference(7, 3, bounds) == 4
    assert sums.lowest_difference(stop, "text", bounds) is None


def test_only_sums_and_differences_are_recorded():
    result = type("R", (), {})()
    sums.record(Op.MUL, 2, 3, result)
    assert not hasattr(result, "int_sum")
    sums.record(Op.SUB, 2, 3, result)
    assert result.int_sum == (-1, {})


def one_short(dims):
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 2  # range(i, j) is empty when length == 2
            best = None
            for k in range(i, j):
                c = cost[i][k] + dims[k + 1]
                if best is None or c < best:
                    best = c
            cost[i][j] = best
    return cost[0][n - 1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_inner_loop_known_to_run_compiles(backend):
    """``best = None`` before a loop over ``range(i, i + length - 1)``, ``length >= 2``: the
    loop runs, so ``best`` is a number after it and the nest compiles (before, the inner
    loop's may-be-zero trips kept the whole region in Python)."""
    calls = [([5, 10, 3, 12, 5, 50, 6],), ([5, 10],), ([4, 7, 9],)]
    assert_same_calls(matrix_chain, calls, backend=backend)
    with target_mode(backend):
        out = astcompile.explain(matrix_chain, [5, 10, 3, 12, 5, 50, 6])
    assert out.break_reasons == [] and len(out.graphs) == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_inner_loop_that_may_not_run_stays_exact(backend):
    """One less and the loop runs zero times for ``length == 2``: ``best`` stays None, goes
    into the list, and the next sum raises TypeError, in Python and compiled alike."""
    assert_same_calls(one_short, [([5, 10, 3, 12, 5],), ([5, 10],)], backend=backend)
    with pytest.raises(TypeError):
        astcompile.compile(one_short, backend=backend)([5, 10, 3, 12, 5])
