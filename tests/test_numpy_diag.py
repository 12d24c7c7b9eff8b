"""np.diag of a vector and np.diagflat: compiled without a graph break on every backend,
equal to NumPy's results (values, dtype, shape); np.diag of a matrix is a NumPy step that
returns NumPy's own read-only view; an empty vector runs in NumPy with the reason said."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls, assert_same_value
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


def diagonal_views(m):
    return np.diag(m), np.diag(m, 1), np.diag(m.T, -2), np.diag(m, 9)


def diagonal_of_a_temporary(m):
    b = m * 2
    c = m * 2  # equal to b, but its own array: the view of b must not share c's memory
    return np.diag(b), c, np.diag(b) + np.diag(c, -1).sum()


def doubled_diagonal(m):
    return np.diag(m) * 2  # the product is a new array: never written over the matrix's view


def jacobi_split(A):
    D = np.diag(A)
    return A - np.diagflat(D), 1.0 / D, D


MATRICES = [
    rng.random((4, 5)),
    rng.random((5, 3)).astype(np.float32),
    rng.random((6, 6))[::2, 1:],
    np.asfortranarray(rng.integers(0, 9, (3, 4))),
    np.zeros((0, 3)),
]


def _flags(value):
    arrays = value if isinstance(value, tuple) else (value,)
    return [a.flags.writeable for a in arrays]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [diagonal_views, diagonal_of_a_temporary, doubled_diagonal])
@pytest.mark.parametrize("m", MATRICES, ids=lambda m: f"{m.dtype}{m.shape}{m.strides}")
def test_diag_of_a_matrix_is_numpys_read_only_view(fn, m, backend):
    """Values, dtypes, read-only flags and memory shared with the matrix (run_both compares
    np.shares_memory of every pair of arguments and results) are NumPy's."""
    got = assert_same(fn, m, backend=backend)
    assert _flags(got) == _flags(fn(m))
    report = astcompile.explain(astcompile.compile(fn, backend=backend), m)
    assert report.graph_break_count == 0, str(report)


@pytest.mark.parametrize("backend", BACKENDS)
def test_diag_of_a_square_matrix_feeds_kernels(backend):
    A = rng.random((5, 5)) + 5 * np.eye(5)
    assert_same_calls(jacobi_split, [(A,), (A[:3, :3],), (A.T,)], backend=backend)
    with pytest.raises(ValueError, match="read-only"):
        astcompile.compile(jacobi_split, backend=backend)(A)[2][0] = 1.0


def diag_of_empty(v):
    return np.diag(v, 1) + 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args, reason",
    [
        (diag_of_empty, (np.zeros(0),), "empty vector"),
    ],
)
def test_what_runs_in_numpy_says_why(fn, args, reason, backend):
    assert_same_calls(fn, [args], backend=backend)
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    assert output.graph_break_count == 1
    assert reason in output.break_reasons[0].detail
