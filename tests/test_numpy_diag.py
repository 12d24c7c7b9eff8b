"""np.diag of a vector and np.diagflat: compiled without a graph break on every backend,
equal to NumPy's results (values, dtype, shape); np.diag of a matrix (a read-only view in
NumPy) and an empty vector run in NumPy with the reason said."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls, assert_same_value
from test_masks import assert_compiled_same

import astcompile

rng = np.random.default_rng(5)


def tridiagonal(d, e):
    return np.diag(d) - np.diag(e, 1) - np.diag(e, -1)


def diagonals(v):
    return np.diag(v, 2), np.diag(v * 2, -3), np.diagflat(v), np.diag(v > 0.5, 1)


def flattened(m, k):
    return np.diagflat(m * 2, k) + 1


PROGRAMS = [
    (tridiagonal, lambda: (rng.random(5), rng.random(4))),
    (diagonals, lambda: (rng.random(4),)),
    (diagonals, lambda: (rng.integers(-3, 3, 6).astype(np.int16),)),
    (flattened, lambda: (rng.random((2, 3)), 2)),
    (flattened, lambda: (rng.random((3, 3)).T, -1)),
    (flattened, lambda: (np.arange(1, 4), 0)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS)
def test_diag_compiles_and_matches_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_new_lengths_do_not_recompile(backend):
    compiled = astcompile.compile(tridiagonal, backend=backend)
    for n in (5, 8, 3):
        d, e = rng.random(n), rng.random(n - 1)
        assert_same_value(compiled(d, e), tridiagonal(d, e))
    assert astcompile.explain(compiled, rng.random(9), rng.random(8)).graph_count == 1


def diagonal_of_matrix(m):
    return np.diag(m) * 2


def diag_of_empty(v):
    return np.diag(v, 1) + 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args, reason",
    [
        (diagonal_of_matrix, (rng.random((3, 4)),), "read-only view"),
        (diag_of_empty, (np.zeros(0),), "empty vector"),
    ],
)
def test_what_runs_in_numpy_says_why(fn, args, reason, backend):
    assert_same_calls(fn, [args], backend=backend)
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    assert output.graph_break_count == 1
    assert reason in output.break_reasons[0].detail
