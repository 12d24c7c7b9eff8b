"""NumPy calls of one value inside a loop region, in C (targets/c/structured_numpy.py):
``np.searchsorted``, ``np.interp`` and ``np.polyval`` give NumPy's answers on sorted and unsorted tables, NaN,
infinities, ties, every table length, both sides and each dtype; NumPy's errors for sizes it
refuses; a table the region writes keeps the region as written."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls, assert_same_warnings

import astcompile
from astcompile.runtime import fastcall
from bench.programs.histogram_edges_loop import histogram_edges_loop as histogram_by_edges


def bins_of(edges, xs):
    out = np.empty(len(xs), dtype=np.int64)
    for i in range(len(xs)):
        out[i] = np.searchsorted(edges, xs[i])
    return out


def moving_edges(edges, xs):
    """The table is written in the loop: the search would have to be ordered with the store."""
    out = np.empty(len(xs), dtype=np.int64)
    for i in range(len(xs)):
        out[i] = np.searchsorted(edges, xs[i])
        edges[0] = xs[i]
    return out


def resample(xs, xp, fp):
    out = np.empty(len(xs))
    for i in range(len(xs)):
        out[i] = np.interp(xs[i], xp, fp)
    return out


def evaluate(c, xs):
    out = np.empty(len(xs))
    for i in range(len(xs)):
        out[i] = np.polyval(c, xs[i])
    return out


def evaluate_sum(c, xs):
    """The value itself leaves the region: a 0-d array for no coefficients, as NumPy's."""
    total = np.polyval(c, xs[0])
    for i in range(1, len(xs)):
        total = total + np.polyval(c, xs[i])
    return total


RNG = np.random.default_rng(11)
GRID = np.linspace(0.0, 1.0, 11)
NANS = np.array([0.0, 0.5, 0.5, 1.0, np.nan, np.nan])
VALUES = np.array([-1.0, 0.0, 0.5, 0.55, 1.0, 2.0, np.nan, -0.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_searches_in_loops_match_numpy(backend):
    calls = [
        (GRID, RNG.random(40) * 1.4 - 0.2),
        (NANS, VALUES),  # NaN sorts after every number; ties at 0.5
        (RNG.random(9), VALUES),  # unsorted: NumPy's probes give its answer
        (GRID[:0], VALUES),  # an empty table
        (GRID.astype(np.float32), (RNG.random(7) * 1.2).astype(np.float32)),
        (np.arange(0, 50, 5), RNG.integers(-5, 60, 30)),
        (np.arange(0, 50, 5, dtype=np.int32), RNG.integers(-5, 60, 30).astype(np.int32)),
        (GRID[::2], VALUES),  # a strided table
    ]
    assert_same_calls(bins_of, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_histogram_by_edges_matches_numpy(backend):
    calls = [(RNG.random(300) * 1.2 - 0.1, GRID), (VALUES, NANS), (RNG.random(5), GRID[:1])]
    assert_same_calls(histogram_by_edges, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_written_table_runs_as_written(backend):
    assert_same_calls(moving_edges, [(GRID.copy(), RNG.random(12))], backend=backend)


@pytest.mark.parametrize(
    "fn, args",
    [
        (histogram_by_edges, (RNG.random(50), GRID)),
        (resample, (RNG.random(9), GRID, GRID**2)),
        (evaluate, (GRID, RNG.random(9))),
    ],
)
def test_the_loops_compile(fn, args):
    """They ran as Python, a NumPy call per value (0.3x plain with tiering off)."""
    report = astcompile.explain(astcompile.compile(fn, backend="c"), *args)
    assert report.graph_break_count == 0 and not report.python_loops, str(report)


def _tables(n):
    """Sorted, with ties, unsorted, and with NaN and infinities among the values."""
    xp = np.sort(RNG.random(n))
    fp = RNG.standard_normal(n)
    yield xp, fp
    yield np.sort(RNG.integers(0, 4, n)).astype(float), fp
    yield RNG.random(n), fp
    yield xp, np.where(RNG.random(n) < 0.3, np.inf, fp)
    yield np.append(xp[:-1], np.nan) if n > 1 else xp, fp


POINTS = np.array([np.nan, -np.inf, np.inf, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, -0.0])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 9, 10, 11, 12, 40])
def test_interpolation_in_loops_matches_numpy(backend, n):
    calls = []
    for xp, fp in _tables(n):
        calls.append((np.concatenate([POINTS, RNG.random(20) * 1.2 - 0.1, xp]), xp, fp))
    assert_same_calls(resample, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_interpolation_raises_as_numpy(backend):
    """No points, or fp of another length: NumPy's ValueError (the wrapper's checks)."""
    grid = np.linspace(0.0, 1.0, 6)
    calls = [(POINTS, grid, grid**2), (POINTS, grid[:0], grid[:0]), (POINTS, grid, grid[:4])]
    assert_same_calls(resample, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_interpolation_raises_on_the_fast_path_too(backend, tmp_path, monkeypatch):
    """Sizes NumPy refuses, where the loop's calls take the C-level call path (its region a
    loop of its own once int values broke the whole function's): it checks them as the
    wrapper does (it read past fp's end, or an empty xp, and returned what memory held)."""
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))  # what it remembers
    xp, fp = np.linspace(-1.0, 1.0, 9), np.array([1.0, 2.0, 3.0])
    points = np.linspace(-2.0, 2.0, 11)
    assert fastcall.extension(astcompile.config.cache_dir) is not None
    assert_same_calls(resample, [(points, xp, np.arange(9)), (points, xp, xp)], backend=backend)
    calls = [(points, xp, fp)] * 4 + [(points, xp[:0], xp[:0])] * 4
    assert_same_calls(resample, calls, backend=backend)  # a new function: entries loaded


COEFFICIENTS = [
    RNG.standard_normal(4),
    np.array([2.5]),
    np.array([1e300, 1e300, -0.0]),
    np.zeros(0),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [evaluate, evaluate_sum])
def test_polynomials_in_loops_match_numpy(backend, fn):
    """Infinities (0 * inf, NumPy's invalid-value warning), overflow, -0.0, no coefficients."""
    assert_same_calls(fn, [(c, POINTS) for c in COEFFICIENTS], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_polynomials_warn_as_numpy(backend):
    assert_same_warnings(evaluate, COEFFICIENTS[0], POINTS, backend=backend)
    assert_same_warnings(evaluate, COEFFICIENTS[2], POINTS * 1e10, backend=backend)


def sorted_then_searched(table, xs):
    """NumPy's result of an argument, made before the loop, searched in it."""
    edges = np.sort(table)
    out = np.empty(len(xs), dtype=np.int64)
    for i in range(len(xs)):
        out[i] = np.searchsorted(edges, xs[i])
    return out


def sorted_then_moved(table, xs):
    """The same result written in the loop: the region runs as written."""
    edges = np.sort(table)
    out = np.empty(len(xs), dtype=np.int64)
    for i in range(len(xs)):
        out[i] = np.searchsorted(edges, xs[i])
        edges[-1] = xs[i]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [sorted_then_searched, sorted_then_moved])
def test_numpys_results_made_before_the_loop(backend, fn):
    calls = [(RNG.random(12), VALUES), (RNG.random(3), RNG.random(20))]
    assert_same_calls(fn, calls, backend=backend)
    report = astcompile.explain(astcompile.compile(fn, backend="c"), *calls[0])
    assert (report.graph_break_count == 0) is (fn is sorted_then_searched), str(report)


def rolling_median(x, k):
    out = np.empty(x.shape[0] - k + 1)
    for i in range(out.shape[0]):
        out[i] = np.median(x[i : i + k])
    return out


def shrinking_median(x, k):
    """Windows clipped at the end, of the array's own dtype; the last one empty."""
    out = np.empty(x.shape[0] + 1, dtype=x.dtype)
    for i in range(out.shape[0]):
        out[i] = np.median(x[i : i + k])
    return out


def _windowed(dtype):
    """Ties, both zeros, infinities, NaN, values whose mean overflows, float32 sums that round."""
    yield RNG.standard_normal(60).astype(dtype)
    yield RNG.integers(-2, 3, 60).astype(dtype) * np.array(-0.0 if dtype else 0.0, dtype)
    yield np.where(RNG.random(60) < 0.5, -0.0, 0.0).astype(dtype)
    yield np.where(RNG.random(60) < 0.2, np.inf, RNG.random(60)).astype(dtype)
    yield np.where(RNG.random(60) < 0.5, -np.inf, np.inf).astype(dtype)
    yield np.where(RNG.random(60) < 0.1, np.nan, RNG.random(60)).astype(dtype)
    yield (np.finfo(dtype).max * (0.4 + RNG.random(60) / 2)).astype(dtype)
    yield (1.0 + RNG.integers(0, 9, 60) * np.finfo(dtype).eps).astype(dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6, 7, 8, 9, 50])
def test_window_medians_are_numpys_bit_for_bit(backend, dtype, k):
    """NaN windows, inf - inf and sums that overflow go to the plain statements (NumPy's NaN
    and warnings); NumPy's mean of the middle makes every zero +0.0."""
    calls = [(x, k) for x in _windowed(dtype)]
    assert_same_bits(shrinking_median, calls, backend)
    assert_same_calls(rolling_median, calls, backend=backend)


def assert_same_bits(fn, calls, backend):
    """Each call's result has the plain call's dtype and bits (NaN payloads, zeros' signs)."""
    compiled = astcompile.compile(fn, backend=backend)
    for x, k in calls:
        with np.errstate(all="ignore"):
            expected, got = fn(x, k), compiled(x.copy(), k)
        assert got.dtype == expected.dtype
        assert (got.view(np.uint8) == expected.view(np.uint8)).all(), (x, got, expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_window_medians_warn_as_numpy(backend):
    """An empty window (Mean of empty slice), inf - inf, an overflowing mean, a NaN."""
    x = np.array([1.0, -np.inf, np.inf, 2.0, 1e308, 1e308, np.nan, 3.0])
    assert_same_warnings(shrinking_median, x, 2, backend=backend)
    assert_same_warnings(rolling_median, x[:3], 0, backend=backend)


def median_in_place(x, k):
    """The windows read what the loop wrote: the region runs as written."""
    for i in range(k, x.shape[0]):
        x[i] = np.median(x[i - k : i])
    return x


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_median_of_written_windows_runs_as_written(backend):
    calls = [(RNG.standard_normal(30), 3), (np.array([1.0, np.nan, 2.0, 3.0, 4.0]), 2)]
    assert_same_calls(median_in_place, calls, backend=backend)


def test_a_rolling_median_compiles():
    """It ran as Python, a NumPy call per window (1.0x plain)."""
    args = (RNG.random(100), 5)
    report = astcompile.explain(astcompile.compile(rolling_median, backend="c"), *args)
    assert report.graph_break_count == 0 and not report.python_loops, str(report)


def rolling_column_medians(x, k):
    """A median filter down each column (``axis=0``) of a 2-D signal, windows clipped at the
    end, the last one empty."""
    out = np.empty((x.shape[0] + 1, x.shape[1]), dtype=x.dtype)
    for i in range(out.shape[0]):
        out[i] = np.median(x[i : i + k], axis=0)
    return out


def rolling_row_medians(x, k):
    """The same along each row (``axis=1``), minus the window's last column."""
    out = np.empty((x.shape[0], x.shape[1] - k + 1), dtype=x.dtype)
    for j in range(out.shape[1]):
        out[:, j] = np.median(x[:, j : j + k], axis=1) - x[:, j + k - 1]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 9])
def test_medians_of_2d_windows_along_an_axis_are_numpys_bit_for_bit(backend, dtype, k):
    """``np.median(w, axis=0)`` of a moving 2-D window is each column's window median; the
    same values as :func:`test_window_medians_are_numpys_bit_for_bit` (NaN, both zeros,
    inf - inf, overflowing means), three or four lines of them."""
    columns = [(x.reshape(20, 3), k) for x in _windowed(dtype)]
    rows = [(x.reshape(4, 15), k) for x in _windowed(dtype)]
    assert_same_bits(rolling_column_medians, columns, backend)
    assert_same_bits(rolling_row_medians, rows, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_medians_of_2d_windows_warn_as_numpy(backend):
    x = np.array([1.0, -np.inf, np.inf, 2.0, 1e308, 1e308, np.nan, 3.0]).reshape(4, 2)
    assert_same_warnings(rolling_column_medians, x, 2, backend=backend)


def column_medians_of_a_fixed_window(x, k):
    """The window does not move: one NumPy call a pass, not a median per column in C."""
    s = 0.0
    for i in range(k):
        s += np.median(x, axis=0)[1] * i
    return s


@pytest.mark.parametrize(
    ("fn", "x", "breaks"),
    [
        (rolling_column_medians, RNG.random((40, 5)), 0),
        (rolling_row_medians, RNG.random((16, 40)), 0),  # 16 rows: the most taken
        (rolling_row_medians, RNG.random((17, 40)), 1),  # one more: NumPy's call, GB023
        (column_medians_of_a_fixed_window, RNG.random((40, 5)), 1),
    ],
)
def test_which_2d_window_medians_compile(fn, x, breaks):
    """Before, each of them ran its region as written (GB023: NumPy's call in a loop region)."""
    compiled = astcompile.compile(fn, backend="c")
    report = astcompile.explain(compiled, x, 4)
    assert report.graph_break_count == breaks, str(report)
    assert_same_calls(fn, [(x, 4), (x, 3)], backend="c")
