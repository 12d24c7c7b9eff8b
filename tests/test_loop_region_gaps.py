"""Loop regions (loops, branches, stores) lower what flat kernels lower: argmax/argmin and
array constants run in the region's C, with NumPy's results, on the eager and C backends.

Each case checks the value, dtype and shape against the plain function, and that ``explain``
reports no GB023 (a region the C backend could not lower runs the user's statements).
"""

from __future__ import annotations

import numpy as np
import pytest

import astcompile


def _same(got, want) -> None:
    """Equal values (NaN where NumPy has NaN), dtypes and shapes, item by item."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(g, w)
        return
    assert type(got) is type(want), (got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def check(fn, *args, backend: str) -> None:
    """``fn`` compiled equals ``fn`` plain on fresh copies of ``args``, with no GB023."""
    f = astcompile.compile(fn, backend=backend)
    for _ in range(2):
        _same(f(*_fresh(args)), fn(*_fresh(args)))
    codes = [b.code for b in astcompile.explain(f, *_fresh(args)).break_reasons]
    assert "GB023" not in codes, codes


def _fresh(args: tuple) -> list:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


BACKENDS = pytest.mark.parametrize("backend", ["eager", "c"])


# -- argmax / argmin ------------------------------------------------------------------------
def arg_after_loop(x, n):
    s = 0.0
    for i in range(n):
        s += x[i, 0]
    return np.argmax(x), np.argmin(x), np.argmax(x, axis=0), np.argmin(x, axis=1), s


def arg_in_loop(x, n):
    best = np.zeros(n, dtype=np.int64)
    worst = np.zeros(n, dtype=np.int64)
    for i in range(n):
        best[i] = np.argmax(x[i] * 2.0 - 1.0)
        worst[i] = x[i].argmin()
    return best, worst


def arg_axis_keepdims(x, n):
    t = 0
    for i in range(n):
        t += i
    return np.argmax(x, axis=-1, keepdims=True), np.argmin(x, axis=1), np.argmax(x, axis=0), t


def arg_sir(n):
    y = np.empty(n + 1)
    y[0] = 1.0
    for t in range(n):
        y[t + 1] = y[t] * 1.1 - 0.02 * t * y[t]
    return np.argmax(y), np.argmin(y)


FLOATS = [
    np.array([[1.0, 3.0, 3.0], [-2.0, 0.0, -2.0], [5.0, 5.0, -1.0]]),  # ties
    np.array([[1.0, 3.0, 3.0], [np.nan, 0.0, np.nan], [5.0, 5.0, -1.0]]),  # NaN: the first
    np.array([[np.inf, -np.inf, 0.0], [-0.0, 0.0, np.nan], [-np.inf, np.inf, np.inf]]),
    np.array([[-5.0, -7.0], [-7.0, -5.0]], dtype=np.float32),
]
OTHERS = [
    np.array([[3, -9, 3], [-9, 3, -9], [0, 0, 0]], dtype=np.int64),
    np.array([[250, 7], [7, 250]], dtype=np.uint8),
    np.array([[False, True, True], [False, False, False], [True, False, True]]),
]


@BACKENDS
@pytest.mark.parametrize("x", FLOATS + OTHERS, ids=lambda x: f"{x.dtype}")
def test_argmax_argmin_in_loop_regions(x, backend):
    n = x.shape[0]
    check(arg_after_loop, x, n, backend=backend)
    check(arg_axis_keepdims, x, n, backend=backend)
    if x.dtype.kind == "f":
        check(arg_in_loop, x, n, backend=backend)


@BACKENDS
def test_argmax_of_an_array_the_loop_filled(backend):
    check(arg_sir, 40, backend=backend)


@BACKENDS
def test_argmax_of_3d_arrays(backend):
    x = np.random.default_rng(0).integers(-3, 3, (4, 5, 6)).astype(np.float64)
    x[2, 3, 1] = np.nan
    check(arg_axis_keepdims, x, 4, backend=backend)
    check(arg_after_loop, x[:, :, 0], 4, backend=backend)


@BACKENDS
def test_argmax_of_an_empty_array_raises(backend):
    f = astcompile.compile(arg_after_loop, backend=backend)
    with pytest.raises(ValueError):
        arg_after_loop(np.zeros((0, 3)), 0)
    with pytest.raises(ValueError):
        f(np.zeros((0, 3)), 0)
