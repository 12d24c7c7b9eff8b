"""A new array a loop overwrites in full before reading it is not filled (lower/dead_fills.py);
every other shape keeps its fill, and each case gives NumPy's values (``np.zeros`` here, so
a fill left out where it is read would show)."""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from bench.loop_kernels import clip_branches
from tests.differential import assert_same_call

UNFILLED = "not filled"


def read_back(x):
    out = np.zeros(x.shape[0])
    s = 0.0
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0
        s += out[i]
    return out, s


def ones_then_all(x):
    out = np.ones(len(x))
    for i in range(len(x)):
        out[i] = x[i] - 1.0
    return out


def short_range(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0] - 1):
        out[i] = x[i]
    return out


def read_first(x):
    out = np.zeros(x.shape[0])
    s = 0.0
    for i in range(x.shape[0]):
        s += out[i]
        out[i] = x[i]
    return out, s


def read_other(x):
    out = np.zeros(x.shape[0])
    s = 0.0
    for i in range(x.shape[0]):
        out[i] = x[i]
        s += out[x.shape[0] - 1]
    return out, s


def store_if(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            out[i] = x[i]
    return out


def stops_early(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            break
        out[i] = x[i]
    return out


def skips(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            continue
        out[i] = x[i]
    return out


def every_other(x):
    out = np.zeros(x.shape[0])
    for i in range(0, x.shape[0], 2):
        out[i] = x[i]
    return out


def read_in_an_earlier_loop(x):
    out = np.zeros(x.shape[0])
    s = 0.0
    for i in range(x.shape[0]):
        s += out[i]
    for i in range(x.shape[0]):
        out[i] = x[i]
    return out, s


def grid(a):
    out = np.empty((a.shape[0], a.shape[1]))
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]
            out[i, j] = s
            s -= out[i, j] * 0.5
    return out, s


def grid_short_rows(a):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        for j in range(a.shape[1] - 1):
            out[i, j] = a[i, j]
    return out


def triangle(a):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        for j in range(i):
            out[i, j] = a[i, j]
    return out


def grid_by_columns(a):
    out = np.zeros_like(a)
    for j in range(a.shape[1]):
        for i in range(a.shape[0]):
            out[i, j] = a[i, j] + out[0, 0]
    return out


def rows(a):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        out[i, :] = a[i, :] * 2.0
    return out


def _compiled(fn, x) -> str:
    compiled = astcompile.compile(fn, backend="c")
    for n in (x.shape[0], 0):
        args = (x[:n],)
        assert_same_call(compiled, args, fn, tuple(a.copy() for a in args), "c")
    runs = [e.run for r in compiled.regions for found in r.entries.values() for e in found]
    source = "".join(r.c_source for r in runs)
    assert "/* for " in source, "not compiled as a loop region"
    return source


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))


X = np.random.default_rng(0).standard_normal(257)


A = np.random.default_rng(1).standard_normal((6, 9))


@pytest.mark.parametrize("fn", [read_back, ones_then_all])
def test_a_fill_the_loop_overwrites_first_is_left_out(fn):
    assert UNFILLED in _compiled(fn, X)


def test_a_loop_nest_over_every_axis_overwrites_a_matrix():
    assert UNFILLED in _compiled(grid, A)


@pytest.mark.parametrize("fn", [grid_short_rows, triangle, grid_by_columns, rows])
def test_a_matrix_fill_something_may_read_is_kept(fn):
    assert UNFILLED not in _compiled(fn, A)


def test_the_clip_benchmark_skips_its_fill():
    compiled = astcompile.compile(clip_branches, backend="c")
    assert_same_call(compiled, (X, -0.5, 0.5), clip_branches, (X, -0.5, 0.5), "c")
    (region,) = compiled.regions
    (run,) = [e.run for found in region.entries.values() for e in found]
    assert UNFILLED in run.c_source


@pytest.mark.parametrize(
    "fn",
    [
        short_range,
        read_first,
        read_other,
        store_if,
        stops_early,
        skips,
        every_other,
        read_in_an_earlier_loop,
    ],
)
def test_a_fill_something_may_read_is_kept(fn):
    assert UNFILLED not in _compiled(fn, X)
