"""``np.where(mask)`` / ``np.nonzero`` used only to index compile as the mask itself
(trace/nonzero.py); any other use of the indices runs the region as written."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls

import astcompile


def flag_where(X):
    flags = np.zeros_like(X)
    flags[np.where(X > 0.5)] = 1.0
    return flags


def sum_of_selected(v):
    idx = np.where(v > 0)[0]
    return v[idx].sum() + v[np.nonzero(v)].mean()


def bump_nonzero(v):
    v[v.nonzero()] += 1
    return v


def rows_and_columns(X):
    r, c = np.where(X > 0.5)
    return X[r, c].sum()


def count_selected(v):
    return len(np.where(v > 0)[0])


def returns_indices(v):
    return np.nonzero(v)


RNG = np.random.default_rng(1)
COMPILED = [
    (flag_where, [(RNG.random((3, 4)),), (np.zeros((2, 2)),)]),
    (sum_of_selected, [(RNG.standard_normal(6),), (np.array([0.0, np.nan, 2.0]),)]),
    (bump_nonzero, [(np.array([0, 2, 0, 3]),), (np.array([0.0, 1.5]),)]),
    (rows_and_columns, [(RNG.random((3, 4)),)]),
]
PLAIN = [
    (count_selected, [(RNG.standard_normal(5),)]),
    (returns_indices, [(np.array([0, 1, 2]),), (np.ones((2, 2)),)]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, calls", COMPILED, ids=[c[0].__name__ for c in COMPILED])
def test_indices_used_to_index_compile_as_the_mask(fn, calls, backend):
    assert_same_calls(fn, calls, backend=backend)
    report = astcompile.explain(astcompile.compile(fn, backend=backend), *calls[0])
    assert report.break_reasons == [], str(report)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, calls", PLAIN, ids=[c[0].__name__ for c in PLAIN])
def test_other_uses_of_the_indices_run_as_written(fn, calls, backend):
    assert_same_calls(fn, calls, backend=backend)
    report = astcompile.explain(astcompile.compile(fn, backend=backend), *calls[0])
    assert any(
        "NonzeroAxis" in r.detail or "np.where/np.nonzero" in r.detail for r in report.break_reasons
    ), str(report)
