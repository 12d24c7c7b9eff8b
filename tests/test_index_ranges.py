"""Bounds checks are left out only where an index provably stays in range (lower/index_ranges.py)."""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from astcompile.ir.shapes import dim_sub, symbol
from astcompile.lower.index_ranges import Affine, Bounds, affine_dim, in_range


def test_affine_bounds_against_a_size():
    n = symbol("n", 10, (0, 0))
    last = Affine(n, -1)
    assert affine_dim(dim_sub(n, 2)) == Affine(n, -2)
    assert in_range(Bounds(Affine(None, 0), last), n)
    assert in_range(Bounds(Affine(None, 1), Affine(n, -2)), n)
    assert not in_range(Bounds(Affine(None, -1), last), n)  # i - 1 from 0
    assert not in_range(Bounds(Affine(None, 0), Affine(n, 0)), n)  # i + 1 up to n - 1
    assert not in_range(Bounds(Affine(None, 0), Affine(symbol("m", 12, (1, 0)), -1)), n)
    assert in_range(Bounds(Affine(None, 2), Affine(None, 4)), 5)
    assert not in_range(Bounds(Affine(None, 2), Affine(None, 5)), 5)
    assert not in_range(None, n)


def neighbours(x):
    out = np.zeros_like(x)
    for i in range(1, x.shape[0]):
        out[i] = x[i] - x[i - 1]
    return out


def reads_past_the_end(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i + 1] - x[i]
    return out


def scalar_stop(x, n):
    total = 0.0
    for i in range(n):
        total += x[i]
    return total


def _c_source(fn) -> str:
    return "\n".join(
        getattr(e.run, "c_source", "")
        for r in fn.regions
        for entries in r.entries.values()
        for e in entries
    )


def test_loop_over_the_size_has_no_bounds_check():
    compiled = astcompile.compile(neighbours, backend="c")
    x = np.random.default_rng(0).random(50)
    np.testing.assert_array_equal(compiled(x), neighbours(x))
    body = _c_source(compiled).split("for (int64_t i_", 1)[1]
    assert "astc_index_error" not in body


def test_index_past_the_end_is_still_checked():
    compiled = astcompile.compile(reads_past_the_end, backend="c")
    with pytest.raises(IndexError, match="out of bounds"):
        compiled(np.arange(6.0))
    assert "astc_index_error(err" in _c_source(compiled).split("for (int64_t i_", 1)[1]


def test_stop_unrelated_to_the_size_is_still_checked():
    compiled = astcompile.compile(scalar_stop, backend="c")
    x = np.arange(6.0)
    assert compiled(x, 6) == scalar_stop(x, 6)
    with pytest.raises(IndexError):
        compiled(x, 7)
