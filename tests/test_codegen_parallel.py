"""The generated kernels' threading: the same bits for any thread count, in each of the entry
function's three ways of running rows (many rows, few long rows sharing chunks, one thread)."""

from __future__ import annotations

import numpy as np
import pytest
from differential import assert_matches

from astcompile.runtime import parallel, set_num_threads
from tests.c_helpers import compile_c


@pytest.fixture
def threads(monkeypatch):
    """Restore the thread count a test changes as it was (the default's sign too)."""
    monkeypatch.setattr(parallel, "_nthreads", parallel._nthreads)
    return set_num_threads


def _stats(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    x64 = x * 1.0e3  # float64: its sums show any change in the order partials are added
    return e / e.sum(axis=-1, keepdims=True), x.mean(axis=-1), x64.var(axis=-1), x.min(axis=-1)


SHAPES = {
    "many rows": (512, 300),
    "few long rows": (3, 100_003),  # 3 rows < 2 threads per row: chunks shared, barriers
    "one long row": (1, 1 << 19),
}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=list(SHAPES))
def test_results_do_not_depend_on_the_thread_count(shape, threads, tmp_path):
    x = np.random.default_rng(1).standard_normal(shape)
    _graph, compiled = compile_c(_stats, [x], str(tmp_path))
    results = {}
    for n in (1, 2, 3, 4):  # 3 and 4 threads oversubscribe: uneven chunk shares
        threads(n)
        results[n] = compiled([x])
    expected = _stats(x)
    for got, want in zip(results[1], expected):
        assert_matches(got, want)
    x[-1, 7] = np.nan  # a NaN in one chunk reaches the row's max and sums
    assert np.isnan(compiled([x])[3][-1]) and np.isnan(compiled([x])[1][-1])
    for n in (2, 3, 4):
        for a, b in zip(results[n], results[1]):
            np.testing.assert_array_equal(a, b)  # bit for bit, NaN where NaN


def test_a_row_level_output_is_written_once_per_row(threads, tmp_path):
    """Few long rows: every thread computes the row's mean, only thread 0 stores it."""
    x = np.random.default_rng(2).random((2, 200_000))
    _, compiled = compile_c(lambda x: x.sum(axis=1) * 2.0, [x], str(tmp_path))
    threads(4)
    (got,) = compiled([x])
    assert_matches(got, x.sum(axis=1) * 2.0)


def _sources(cache_dir) -> str:
    return "".join(p.read_text() for p in sorted((cache_dir / "c-v1").glob("*.c")))


def test_without_row_axes_no_branch_for_many_rows(threads, tmp_path):
    """A 1-D kernel has one row: the many-rows branch could never run, and is not written
    (GCC spent a tenth of a small kernel's build on it); its team shares the row's chunks."""
    x = np.random.default_rng(3).standard_normal(1 << 19)
    fn = lambda x: (np.exp(x * 0.5) + 1.0, x.sum())
    _, compiled = compile_c(fn, [x], str(tmp_path / "flat"))
    source = _sources(tmp_path / "flat")
    assert "few long rows" in source and "many rows" not in source
    results = {}
    for n in (1, 2, 3):
        threads(n)
        results[n] = compiled([x])
    for got, want in zip(results[1], fn(x)):
        assert_matches(got, want)
    for n in (2, 3):
        for a, b in zip(results[n], results[1]):
            np.testing.assert_array_equal(a, b)
    _, compiled = compile_c(lambda x: x * 2.0, [x.reshape(512, -1)], str(tmp_path / "rows"))
    assert "many rows" in _sources(tmp_path / "rows")


def test_a_zero_dimensional_kernel_opens_no_team(threads, tmp_path):
    x = np.array(1.5)
    threads(2)
    _, compiled = compile_c(lambda x: np.sqrt(x) * 3.0 + x, [x], str(tmp_path))
    source = _sources(tmp_path)
    (got,) = compiled([x])
    assert_matches(got, np.sqrt(x) * 3.0 + x)
    assert "omp parallel" not in source  # one element: one thread, no dead team branches
