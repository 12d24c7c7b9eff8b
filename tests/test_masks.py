"""Boolean-mask reads and stores (``Z[I] = Z[I] ** 2 + C[I]``) against NumPy, on both backends.

Each program must compile without a graph break and, on the C backend, without falling back to
the eager interpreter; results and argument mutations must equal NumPy's.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls

import astcompile


def assert_compiled_same(caplog, fn, *args, backend):
    """NumPy's answer, with no graph break and (for C) no eager fallback of a region."""
    caplog.set_level(logging.INFO, logger="astcompile.graph_breaks")
    got = assert_same(fn, *args, backend=backend)
    output = astcompile.explain(fn, *args)
    assert output.graph_break_count == 0, str(output)
    fallbacks = [r.getMessage() for r in caplog.records if "runs eagerly" in r.getMessage()]
    assert not fallbacks, fallbacks
    return got


def clip_positive(x):
    x[x > 0] = 0
    return x


def increment_masked(x, mask):
    x[mask] += 1
    return x


def square_where_small(z, c):
    i = np.abs(z) < 2
    z[i] = z[i] ** 2 + c[i]
    return z


def escape_time(z, c, maxit):
    n_iter = np.zeros(z.shape, dtype=np.int64)
    for n in range(maxit):
        i = np.abs(z) < 2
        n_iter[i] = n
        z[i] = z[i] ** 2 + c[i]
    return n_iter, z


def masked_sum(x):
    return x[x > 0.5].sum(), np.sum(x[x < 0.2])


def masked_means(x, rows):
    """``.mean()`` of selections: float64 for ints, the float type kept (npbench's azimint)."""
    return x[rows].mean(), np.mean(x[x > 5]), x.astype(np.float32)[rows].mean()


def radial_means(data, radius, npt):
    rmax = radius.max()
    res = np.zeros(npt, dtype=np.float64)
    for i in range(npt):
        r1 = rmax * i / npt
        r2 = rmax * (i + 1) / npt
        in_ring = np.logical_and(r1 <= radius, radius < r2)
        res[i] = data[in_ring].mean()
    return res


def row_mask_store(a, rows, v):
    a[rows] = v
    a[~rows] *= 2
    return a


def masked_int_division(a, b):
    m = b != 0
    a[m] = a[m] // b[m]
    return a


def _grid(n=7):
    x = np.linspace(-2.0, 1.0, n)
    return np.add.outer(x * 0.3, x)


PROGRAMS = [
    (clip_positive, lambda: (np.linspace(-3, 3, 11),)),
    (increment_masked, lambda: (np.arange(6.0), np.arange(6) % 2 == 0)),
    (square_where_small, lambda: (np.linspace(-3, 3, 13), np.linspace(-0.5, 0.5, 13))),
    (escape_time, lambda: (_grid() * 0.0, _grid(), 12)),
    (masked_sum, lambda: (np.linspace(0, 1, 10).astype(np.float32),)),
    (
        row_mask_store,
        lambda: (
            np.arange(12.0).reshape(4, 3),
            np.array([1, 0, 0, 1], bool),
            np.array([7.0, 8.0, 9.0]),
        ),
    ),
    (masked_int_division, lambda: (np.arange(-4, 8), np.arange(12) % 3)),
    (
        masked_means,
        lambda: (np.arange(12, dtype=np.int32).reshape(3, 4), np.array([1, 0, 1], bool)),
    ),
    (radial_means, lambda: (np.linspace(0, 1, 50), np.linspace(0, 1, 50) ** 2, 7)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_mask_programs_compile_and_match_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_mask_store_writes_into_the_callers_array(backend):
    x = np.linspace(-1, 1, 5)
    got = astcompile.compile(clip_positive, backend=backend)(x)
    assert got is x
    np.testing.assert_array_equal(x, [-1.0, -0.5, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_mask_shape_mismatch_raises_index_error_like_numpy(backend):
    def store(x, m):
        x[m] = 0
        return x

    with pytest.raises(IndexError) as expected:
        store(np.ones(4), np.ones(3, bool))
    with pytest.raises(IndexError) as got:
        astcompile.compile(store, backend=backend)(np.ones(4), np.ones(3, bool))
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_free_standing_selection_is_a_graph_break_with_numpys_answer(backend):
    def select(x):
        return x[x > 0] * 2

    x = np.array([1.0, -2.0, 3.0])
    assert_same(select, x, backend=backend)
    output = astcompile.explain(select, x)
    assert output.graph_break_count == 1
    assert "boolean mask" in str(output)


@pytest.mark.parametrize("backend", BACKENDS)
def test_selections_through_different_masks_break(backend):
    def mixed(x, y):
        x[x > 0] = y[y > 0]
        return x

    x, y = np.array([1.0, -1.0, 2.0]), np.array([3.0, 4.0, -5.0])
    assert_same(mixed, x, y, backend=backend)
    assert astcompile.explain(mixed, x, y).graph_break_count == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_whose_length_must_equal_the_count_breaks(backend):
    def store(x, v):
        x[x > 0] = v
        return x

    x, v = np.array([1.0, -1.0, 2.0]), np.array([5.0, 6.0])
    assert_same(store, x, v, backend=backend)
    with pytest.raises(ValueError):
        astcompile.compile(store, backend=backend)(x.copy(), np.ones(3))


def _masked_inplace(w, v):
    w[w > 0] += v
    return w


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("v", [np.array(-1, np.int8), np.float64(1.5), np.uint8(3)])
def test_inplace_update_through_a_mask_casts_like_numpy(backend, v):
    """``w[m] += v`` adds into the selection in place: NumPy's ``same_kind`` rule raises for
    ``uint8 += int8`` or ``+= float`` (it was cast unsafely by the store)."""
    assert_same_calls(_masked_inplace, [(np.array([0, 2, 5], np.uint8), v)], backend=backend)
