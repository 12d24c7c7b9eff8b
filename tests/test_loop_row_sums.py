"""Sums over leading axes inside loop regions fold whole rows (targets/c/structured_reduce.py),
and ``X.T @ v`` in a loop sums down ``X``'s rows (passes/matmul_loops.py): a contiguous vector
loop per row instead of a strided column per result element. Compared with NumPy through the
shared differential helper (float sums in another order, within its tolerances).
"""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest
from differential import BACKENDS, assert_same

import astcompile
from astcompile import config


def gradient_steps(X, y, steps):
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        err = X @ w - y
        w -= 0.01 * (X.T @ err)
    return w


def transposed_matrix(X, B, steps):
    acc = np.zeros((X.shape[1], B.shape[1]), dtype=X.dtype)
    for _ in range(steps):
        acc = acc + X.T @ B
    return acc


def column_totals(M, steps):
    out = np.zeros((steps, M.shape[1]), dtype=M.dtype)
    for k in range(steps):
        out[k] = M.sum(axis=0) + k
    return out


def kept_and_many_axes(T, steps):
    a = np.zeros((1, 1, T.shape[2]))
    b = np.zeros(T.shape[2])
    for _ in range(steps):
        a = a + np.sum(T * 2.0, axis=(0, 1), keepdims=True)
        b = b + T.sum(axis=(0, 1))
    return a, b


def reads_what_it_replaces(M, w, steps):
    for _ in range(steps):
        w = np.sum(M * w, axis=0) / M.shape[0]
    return w


RNG = np.random.default_rng(11)
CASES = [
    (gradient_steps, (RNG.standard_normal((40, 5)), RNG.standard_normal(40), 4)),
    (gradient_steps, (np.zeros((0, 3)), np.zeros(0), 2)),
    (transposed_matrix, (RNG.random((7, 3)), RNG.random((7, 4)), 2)),
    (transposed_matrix, (np.arange(12).reshape(4, 3), np.arange(8).reshape(4, 2), 3)),
    (column_totals, (RNG.random((6, 4)), 3)),
    (column_totals, (np.arange(12, dtype=np.uint64).reshape(3, 4), 2)),
    (column_totals, (RNG.random((5, 3)).astype(np.float32), 2)),
    (column_totals, (np.ones((4, 3), dtype=np.int8) * 100, 2)),
    (kept_and_many_axes, (RNG.random((3, 4, 5)), 2)),
    (reads_what_it_replaces, (RNG.random((4, 3)), RNG.random(3), 3)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)]
)
def test_leading_axis_sums_in_loops_match_numpy(fn, args, backend):
    assert_same(fn, *args, backend=backend)


@pytest.mark.parametrize("fn, args", [CASES[0], CASES[4]], ids=["transposed", "sum_axis_0"])
def test_they_fold_row_by_row_in_the_c(fn, args, tmp_path, monkeypatch):
    monkeypatch.setattr(config, "debug_dir", str(tmp_path))
    monkeypatch.setattr(config, "tiering", False)
    astcompile.compile(fn, backend="c")(*args)
    (c_file,) = glob.glob(os.path.join(str(tmp_path), "*", "*.lower.c"))
    with open(c_file) as f:
        assert "row by row" in f.read()
