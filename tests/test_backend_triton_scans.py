"""Scans on the Triton target: ``np.cumsum``/``np.cumprod`` along the last axis and of a
flattened array run as scan kernels (one program per row, or several for few long rows), in
Triton's interpreter here.

``row_loop`` shrinks the longest row held in one block to 16 elements so the looped scan (a
running value carried from step to step) runs too; ``long_rows`` makes rows over 64 elements
run on several programs each.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import EVERY_BACKEND, TRITON, assert_same, target_mode
from test_backend_triton import TINY_PARTS, record_grids, small_values

import astcompile
from astcompile.runtime import triton_runtime

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")

rng = np.random.default_rng(1)
X = rng.standard_normal((5, 37))
K = rng.integers(-50, 50, (5, 37)).astype(np.int32)


def rows(x):
    return np.cumsum(x * 2, axis=-1) + 1, x.cumprod(axis=1)


def flat(x):
    return np.cumsum(x), np.cumprod(x * 0.01 + 1)


def chained(x):
    return np.cumsum(np.cumsum(x, axis=-1), axis=-1)


def typed(x):
    small = np.cumsum(x > 0, axis=-1, dtype=np.int16)  # no int16 scan kernel: a NumPy step
    return np.cumsum(x, axis=-1, dtype=np.float32), np.cumsum(x > 0, axis=-1), small


def last(x):
    return np.cumsum(x, axis=-1), np.cumprod(x, axis=2)


def ints(k):
    return np.cumsum(k, axis=-1), k.cumsum(), np.cumprod(k % 3 - 1, axis=-1)


SCAN_CASES = [
    (rows, (X,)),
    (rows, (X.astype(np.float32),)),
    (rows, (X.T,)),  # strided rows
    (rows, (X[:, :1],)),  # rows of one element
    (rows, (np.zeros((0, 4)),)),  # no rows
    (flat, (X,)),
    (flat, (X[::2, ::3],)),
    (chained, (X,)),
    (typed, (X,)),  # a cast before the scan; a bool scan counts in int64
    (ints, (K,)),  # an int32 cumsum is int64, as NumPy's on Linux
    (ints, (K.astype(np.uint8),)),  # uint8 accumulates in uint64
    (last, (rng.standard_normal((2, 3, 9)),)),  # two leading axes
]


def _ids(cases: list) -> list[str]:
    return [f"{f.__name__}{k}" for k, (f, _) in enumerate(cases)]


def _entry(compiled):
    (entry,) = [e for r in compiled.regions for es in r.entries.values() for e in es]
    return entry


@pytest.mark.parametrize(("fn", "args"), SCAN_CASES, ids=_ids(SCAN_CASES))
def test_scans_match_numpy(fn, args):
    assert_same(fn, *args, backend="triton")
    compiled = astcompile.compile(fn, backend="triton")
    with target_mode("triton"):
        compiled(*args)
    assert _entry(compiled).run.target == "triton"


@pytest.fixture
def row_loop(monkeypatch):
    """Rows longer than 16 elements are scanned in steps of 16, each from a carried value."""
    small = triton_runtime.Blocks(64, 16, 16, ((1 << 30, 4),))
    monkeypatch.setitem(triton_runtime.BLOCKS, "interpret", small)


@pytest.mark.parametrize(
    ("fn", "args"), SCAN_CASES[:3] + SCAN_CASES[5:], ids=_ids(SCAN_CASES[:3] + SCAN_CASES[5:])
)
def test_looped_scans_match_numpy(row_loop, fn, args):
    assert_same(fn, *args, backend="triton")


@pytest.fixture
def long_rows(monkeypatch):
    """Rows of more than 64 elements are scanned by several programs each (12 in all, in
    steps of 16): each part's total first, then each part from the totals before it.
    Lists each such launch's (rows, parts)."""
    return record_grids(monkeypatch)


L = rng.standard_normal((2, 150))
LONG = [
    (rows, (L,)),
    (rows, (L.astype(np.float32),)),
    (rows, (L[:, ::-1],)),  # strided
    (flat, (X,)),  # 185 elements, one row
    (ints, (rng.integers(-50, 50, (2, 150)).astype(np.int32),)),
    (last, (rng.standard_normal((2, 1, 100)),)),
]


@pytest.mark.parametrize(("fn", "args"), LONG, ids=_ids(LONG))
def test_few_long_rows_are_scanned_by_several_programs(long_rows, fn, args):
    assert_same(fn, *args, backend="triton")
    assert long_rows and all(parts > 1 for _, parts in long_rows)


def test_a_nan_in_one_part_reaches_the_rest_of_its_row(long_rows):
    x = L.copy()
    x[0, 70] = np.nan
    x[1, 3] = np.inf
    assert_same(rows, x, backend="triton")
    assert long_rows


def test_scans_run_as_triton_kernels():
    """The region runs on Triton, its scans as scan kernels, not as NumPy steps."""
    compiled = astcompile.compile(rows, backend="triton")
    with target_mode("triton"):
        compiled(X)
    run = _entry(compiled).run
    assert run.target == "triton"
    assert "_k_scan_" in run.py_source and "_step(" not in run.py_source
    assert "tl.cumsum(x, axis=0)" in run.triton_source
    assert "tl.cumprod(x, axis=0)" in run.triton_source


def test_scan_along_a_leading_axis_is_a_host_loop(monkeypatch):
    """No scan kernel runs down the columns: the tracer's loop over rows stays a loop, which
    the Triton target runs as a host loop launching one row's kernel per iteration."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")

    def down(x):
        return np.cumsum(x, axis=0)

    report = str(astcompile.explain(astcompile.compile(down, backend="triton"), X))
    assert "on triton (host loops launching the body's kernels" in report
    assert_same(down, X, backend="triton")


def test_scan_result_written_into_runs_in_store_phases():
    """A store into the scan's result runs as a Triton store kernel after the scan."""

    def written(x):
        c = np.cumsum(x, axis=-1)
        c[:, 0] = 0.0
        return c * 2

    assert_same(written, X, backend="triton")
    compiled = astcompile.compile(written, backend="triton")
    with target_mode("triton"):
        compiled(X)
    run = _entry(compiled).run
    assert run.target == "triton" and "tl.cumsum" in run.triton_source


def every_kind(x):
    return np.cumsum(x, axis=-1), np.cumprod(x, axis=-1), np.cumsum(x)


def with_dtypes(x):
    return np.cumsum(x, axis=-1, dtype=bool), np.cumprod(x, axis=1, dtype=np.uint8)


DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", [*DTYPES, np.float32, np.float64])
def test_every_dtype_in_steps_and_parts(monkeypatch, dtype):
    """NumPy's accumulate dtypes (scan kernels for 32- and 64-bit, NumPy steps for the
    rest), with rows of 23 in steps of 4 and on three programs each."""
    grids = record_grids(monkeypatch, TINY_PARTS)
    for fn in (every_kind, with_dtypes):
        assert_same(fn, small_values(dtype), backend="triton")
    assert (1, 6) in grids and (2, 3) in grids


def rolling_mean(x, w):
    c1 = np.concatenate((np.zeros(1), np.cumsum(x)))
    return (c1[w:] - c1[:-w]) / w


def padded(x):
    c = np.zeros(x.shape[0] + 1)
    c[1:] = np.cumsum(x)
    return c[2:] - c[:-2]


def into_argument(x, out):
    out[1:] = np.cumsum(x)
    return out.sum(), out[1:-1] * 2


def trimmed(x):
    return np.concatenate(([0.0], np.cumprod(x * 0.1 + 1)))[1:-1]


def differences(x):
    return np.diff(np.concatenate((np.zeros(1), np.cumsum(x))))


def rolling_rows(x, w):
    c = np.concatenate((np.zeros((x.shape[0], 1)), np.cumsum(x, axis=1)), axis=1)
    return c[:, w:] - c[:, :-w]


def appended(x):
    c = np.append(np.cumsum(x), 0.0)
    return c[1:] + c[:-1]


V = X[0, :10]
STORED_SCANS = [
    (rolling_mean, (V, 3)),
    (rolling_mean, (V.astype(np.float32), 1)),
    (rolling_mean, (np.arange(7), 2)),
    (padded, (V,)),
    (into_argument, (V, np.ones(11))),
    (trimmed, (V,)),
    (differences, (V,)),
    (rolling_rows, (X[:3, :8], 2)),
    (appended, (V,)),
]


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize(("fn", "args"), STORED_SCANS, ids=_ids(STORED_SCANS))
def test_a_scan_stored_into_an_array_is_read_after_the_store(backend, fn, args):
    """A scan's result stored into another array (``np.concatenate``, ``c[1:] = ...``) and
    that array read afterwards (sliced at both ends): the reads see the stored scan. The scan
    step replacing the loop re-created the store after the reads, which then read zeros."""
    assert_same(fn, *args, backend=backend)
