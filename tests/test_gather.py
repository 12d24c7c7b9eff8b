"""Indexing with a 1-D integer array: gathers and scatters compiled as loops, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from differential import (
    BACKENDS,
    TRITON,
    assert_same,
    assert_same_calls,
    assert_same_signs,
    assert_same_warnings,
)

import astcompile


def gathers(x, idx, M):
    return x[idx] * 2.0, M[idx], x[idx].sum(), M[idx, 1:]


def scatters(x, idx, v):
    x[idx] = v
    x[idx] += 1.0  # repeated indices get one increment, as in NumPy
    return x


def rows_by_index(M, order):
    out = np.zeros_like(M)
    for k in range(order.shape[0]):
        out[k] = M[order[k]]
    return out + M[order]


CASES = [
    (gathers, lambda: (np.arange(8.0), np.array([3, -1, 0, 3, 7]), np.arange(24.0).reshape(8, 3))),
    (gathers, lambda: (np.arange(8.0), np.array([], dtype=np.int64), np.ones((8, 3)))),
    (scatters, lambda: (np.arange(8.0), np.array([3, -1, 0, 3]), np.array([1.0, 2.0, 3.0, 4.0]))),
    (scatters, lambda: (np.arange(8, dtype=np.float32), np.array([5, 2], dtype=np.uint8), 9.7)),
    (rows_by_index, lambda: (np.arange(12.0).reshape(4, 3), np.array([2, 0, 3, 1]))),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, make", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)]
)
def test_integer_array_indexing_matches_numpy(fn, make, backend):
    assert_same(fn, *make(), backend=backend)
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *make())
    assert output.graph_break_count == 0, output


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_of_range_index_raises_numpys_index_error(backend):
    compiled = astcompile.compile(gathers, backend=backend)
    x, M = np.arange(8.0), np.ones((8, 3))
    with pytest.raises(IndexError, match="index 8 is out of bounds for axis 0 with size 8"):
        compiled(x, np.array([1, 8]), M)
    with pytest.raises(IndexError, match="index -9 is out of bounds for axis 0 with size 8"):
        compiled(x, np.array([-9]), M)


def swap_rows(A, k, p):
    A = A.copy()
    A[[k, p]] = A[[p, k]]  # NumPy reads both rows first: a swap
    return A


def rows_by_a_list(x, i):
    return x[[i, 0, i]] * 2, x[[1, -1], 1:]


def pivoting(A):
    A = A.copy()
    for k in range(A.shape[0] - 1):
        p = np.argmax(np.abs(A[k:, k])) + k
        A[[k, p]] = A[[p, k]]
        A[k + 1 :, k:] -= np.outer(A[k + 1 :, k] / A[k, k], A[k, k:])
    return A


LIST_CASES = [
    (swap_rows, (np.arange(12.0).reshape(4, 3), 0, 2)),
    (swap_rows, (np.arange(12.0).reshape(4, 3), 1, 1)),
    (swap_rows, (np.arange(12).reshape(4, 3), -1, 0)),
    (rows_by_a_list, (np.arange(9.0).reshape(3, 3), 2)),
    (rows_by_a_list, (np.arange(9.0).reshape(3, 3), -3)),
    (pivoting, (np.array([[1.0, 2.0, 0.5], [4.0, 1.0, 2.0], [2.0, 8.0, 1.0]]),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", LIST_CASES)
def test_a_list_of_integers_indexes_like_an_integer_array(fn, args, backend):
    """``A[[k, p]] = A[[p, k]]`` (the row swap of every pivoting solver) used to break."""
    assert_same(fn, *args, backend=backend)
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    assert not output.break_reasons, str(output)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_index_out_of_range_raises_index_error(backend):
    compiled = astcompile.compile(swap_rows, backend=backend)
    with pytest.raises(IndexError):
        compiled(np.ones((3, 2)), 0, 3)


def scatter_listed(a):
    a[[0, 1]] = 7
    return a


def scatter_in_a_loop(a, idx):
    for t in range(2):
        a[idx] = a[::-1] * t
    return a


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
def test_a_scatter_checks_every_index_before_it_writes(backend):
    """``a[[0, 1]] = 7`` on one element raises IndexError having written nothing: NumPy
    checks all indices first (compiled, ``a[0]`` was written before ``a[1]`` raised)."""
    assert_same_calls(scatter_listed, [(np.array([1]),), (np.array([1, 2]),)], backend=backend)
    calls = [(np.arange(3.0), np.array([0, -3, 2])), (np.arange(3.0), np.array([0, 2, 5]))]
    assert_same_calls(scatter_in_a_loop, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
def test_a_scatter_names_the_index_out_of_range_as_numpy(backend):
    """NumPy's message names the first index out of range and the size; compiled scatters said
    only "index out of bounds for axis 0"."""
    listed = astcompile.compile(scatter_listed, backend=backend)
    with pytest.raises(IndexError, match=r"^index 1 is out of bounds for axis 0 with size 1\b"):
        listed(np.array([1]))
    looped = astcompile.compile(scatter_in_a_loop, backend=backend)
    with pytest.raises(IndexError, match=r"^index -4 is out of bounds for axis 0 with size 3\b"):
        looped(np.arange(3.0), np.array([0, -4, 5]))


def deposit(grid, idx, charges, frac):
    np.add.at(grid, idx, charges * (1.0 - frac))  # repeated indices accumulate, unbuffered
    np.add.at(grid, idx - 1, 0.1)  # a weak scalar: float32 grids add it as float32
    np.maximum.at(grid, idx, frac)
    return grid


def add_at_rows(M, idx, v):
    np.add.at(M, idx, v)
    np.add.at(M, (idx, 1), 2)
    return M


def add_at_itself(a, idx):
    np.add.at(a, idx, a[::-1])  # NumPy reads a copy of what it writes
    np.add.at(a, idx, a[1])
    np.add.at(a, a.astype(np.int64) % 4, 1)
    return a


_RNG = np.random.default_rng(5)
_IDX, _Q, _F = _RNG.integers(-8, 9, 40), _RNG.random(40), _RNG.random(40)
AT_CASES = [
    (deposit, (np.zeros(9), _IDX, _Q, _F)),
    (deposit, (np.zeros(9, np.float32), _IDX, _Q, _F)),
    (deposit, (np.zeros(9, np.int8), _IDX, _Q * 300, _F)),  # float sums cast back, wrapping
    (deposit, (np.zeros(9), _IDX[:0], _Q[:0], _F[:0])),
    (add_at_rows, (np.zeros((4, 3)), np.array([1, 1, -1]), np.arange(9.0).reshape(3, 3))),
    (add_at_rows, (np.zeros((4, 3), np.int64), np.array([0, 0]), np.ones(3))),
    (add_at_itself, (np.arange(4.0), np.array([1, 2, 3, 1]))),
    (add_at_itself, (np.arange(4), np.array([0, 0, 3, -1]))),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", AT_CASES)
def test_ufunc_at_compiles_as_numpys_unbuffered_loop(fn, args, backend):
    """``np.add.at(grid, idx, v)`` (a particle deposit, a histogram by index) broke the trace:
    the region ran as Python. Now a scatter loop that combines, NumPy's results and dtypes."""
    assert_same(fn, *args, backend=backend)
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    assert not output.break_reasons, str(output)


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
def test_ufunc_at_out_of_range_raises_numpys_error_having_written_nothing(backend):
    calls = [(np.zeros(9), _IDX, _Q, _F), (np.zeros(9), _IDX + 5, _Q, _F)]
    assert_same_calls(deposit, calls, backend=backend)
    compiled = astcompile.compile(deposit, backend=backend)
    with pytest.raises(IndexError, match=r"^index 9 is out of bounds for axis 0 with size 9\b"):
        compiled(np.zeros(9), np.array([0, 9]), _Q[:2], _F[:2])


def at_unsupported(a, idx, v):
    np.add.at(a, idx, v)
    return a


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "args",
    [
        (np.zeros(3), np.array([0, 1]), np.ones(3)),  # NumPy's "not broadcastable" message
        (np.zeros(3), np.array([0, 1]), 1j),  # NumPy warns (ComplexWarning)
        (np.zeros(3), 1, 2.0),  # a scalar index
        (np.zeros(3), np.array([0, 1]), [1.0, 2.0]),
    ],
)
def test_ufunc_at_that_numpy_decides_runs_numpy(args, backend):
    assert_same_calls(at_unsupported, [args], backend=backend)


def max_at(a, idx, v):
    np.maximum.at(a, idx, v)
    np.minimum.at(a, idx[::-1], v)
    return a


def max_at_count(a, idx, v):
    np.maximum.at(a, idx, v)
    return (a > 0.5).sum()  # C's compare raises the flag too: one not cleared with it


_NAN = np.array([np.nan, 1.0])
NAN_AT_CASES = {
    "NaN value": (np.zeros(3), np.array([0, 1]), _NAN),
    "NaN in the array": (np.array([np.nan, 0, 0]), np.array([0, 1]), 1.0),
    "NaN not indexed": (np.array([0, 0, np.nan]), np.array([0, 1]), 2.0),
    "float32 array, float64 value": (np.zeros(3, np.float32), np.array([0, 1]), _NAN),
    "float32 array, Python float": (np.zeros(3, np.float32), np.array([0, 1]), np.nan),
    "float32 scalar": (np.zeros(3, np.float32), np.array([0, 1]), np.float32(np.nan)),
    "2-D array": (np.zeros((3, 2)), np.array([0, 1]), np.nan),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("args", NAN_AT_CASES.values(), ids=NAN_AT_CASES.keys())
def test_maximum_at_of_nan_warns_where_numpys_indexed_loop_does(args, backend):
    """NumPy's indexed loop (a 1-D array, a value of its dtype) compares loudly: "invalid value
    encountered in maximum" for a NaN it meets, where np.maximum of arrays (and the buffered
    loop of a cast value or a 2-D array) is quiet. Compiled calls were silent."""
    for fn in (max_at, max_at_count):
        assert_same(fn, *args, backend=backend)
        assert_same_warnings(fn, *args, backend=backend)


def extreme_at(a, idx, v):
    hi = a.copy()
    np.maximum.at(hi, idx, v)
    lo = a.copy()
    np.minimum.at(lo, idx, v)
    return hi, lo


def ties_and_nans(dtype: type = np.float64) -> tuple:
    """Ties of signed zeros and of equal values, a slot tied twice, NaNs of either sign on
    either side then a number: the picks ``astc_maximum_at`` (a branch on non-NaN operands)
    must make as NumPy's indexed loop does, the second of two equal values included."""
    a = np.array([0.0, -0.0, 1.0, np.nan, -np.nan, 2.0, -0.0, 3.0], dtype)
    idx = np.array([0, 1, 2, 3, 4, 5, 5, 6, 6, 7, 7])
    v = np.array([-0.0, 0.0, 1.0, -np.nan, np.nan, np.nan, 4.0, 0.0, -0.0, -np.nan, 1.0], dtype)
    return a, idx, v


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_maximum_at_picks_signed_zeros_and_nans_as_numpy(dtype, backend):
    args = ties_and_nans(dtype)
    got = assert_same(extreme_at, *args, backend=backend)
    with np.errstate(invalid="ignore"):
        assert_same_signs(got, extreme_at(*args))
    assert_same_warnings(extreme_at, *args, backend=backend)
