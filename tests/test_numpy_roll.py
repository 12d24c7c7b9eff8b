"""np.roll: compiled without a graph break on every backend (two slices concatenated), equal
to NumPy's results for shifts smaller than, equal to and larger than the length, several
axes, and no axis; a new length with the same shift does not recompile."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls, assert_same_value
from test_masks import assert_compiled_same

import astcompile

rng = np.random.default_rng(11)


def periodic_laplacian(u):
    return np.roll(u, 1) + np.roll(u, -1) - 2 * u


def rolls(u):
    return (
        np.roll(u, (1, -2), axis=(0, 1)),
        np.roll(u, 5),
        np.roll(u, -7, axis=1),
        np.roll(u, 0, axis=0),
        np.roll(u, 3, axis=-2),
        np.roll(u, (1, 1), axis=(1, 1)),
    )


def neighbours(board):
    up, down = np.roll(board, 1, axis=0), np.roll(board, -1, axis=0)
    rows = up + board + down
    return np.roll(rows, 1, axis=1) + rows + np.roll(rows, -1, axis=1) - board


def neighbours_by_loops(board):
    total = np.zeros(board.shape, board.dtype)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            total = total + np.roll(np.roll(board, dy, axis=0), dx, axis=1)
    return total - board


PROGRAMS = [
    (periodic_laplacian, lambda: (rng.random(7),)),
    (rolls, lambda: (rng.random((4, 5)),)),
    (rolls, lambda: (rng.integers(0, 9, (3, 3)).astype(np.uint8),)),
    (rolls, lambda: (rng.random((2, 6)) > 0.5,)),
    (neighbours, lambda: (rng.integers(0, 2, (5, 6)),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS)
def test_roll_compiles_and_matches_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


def roll_two(u):
    return np.roll(u, 2) * 1.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_lengths_up_to_the_shift_match_numpy(backend):
    """``|shift| >= n`` wraps around (``shift % n``): lengths 1, 2, 3 against a shift of 2."""
    calls = [(rng.random(n),) for n in (9, 1, 2, 3, 4, 0)]
    assert_same_calls(roll_two, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_new_lengths_do_not_recompile(backend):
    compiled = astcompile.compile(periodic_laplacian, backend=backend)
    for n in (5, 8, 13):
        u = rng.random(n)
        assert_same_value(compiled(u), periodic_laplacian(u))
    assert astcompile.explain(compiled, rng.random(21)).graph_count == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_shifts_from_a_loop_over_a_tuple_match_numpy(backend):
    """The shifts are the loop's values: the loop stays in Python, its body runs as written."""
    boards = [(rng.integers(0, 2, (5, 6)),), (rng.integers(0, 2, (4, 4)),)]
    assert_same_calls(neighbours_by_loops, boards, backend=backend)


def roll_by(u, k):
    return np.roll(u, k, axis=0) - u


def roll_half(u):
    return np.roll(u, u.shape[0] // 2, axis=0) - u


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_shift_from_sizes_compiles(caplog, backend):
    assert_compiled_same(caplog, roll_half, rng.random((6, 2)), backend=backend)
    assert_same_calls(roll_half, [(rng.random((n, 3)),) for n in (7, 2, 1, 4)], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_shift_passed_in_matches_numpy(backend):
    u = rng.random((5, 2))
    assert_same_calls(roll_by, [(u, 1), (u, 2), (u, -1), (u, 6), (u, 0)], backend=backend)
