"""Loop regions (loops, branches, stores) lower what flat kernels lower: argmax/argmin and
array constants run in the region's C, with NumPy's results, on the eager and C backends.

Each case checks the value, dtype and shape against the plain function, and that ``explain``
reports no break: no GB023 (a region the C backend could not lower runs the user's
statements), and every region ran compiled (only: where NumPy warns, as ``inf * 0`` does, a
region runs its statements after its compiled run, so that NumPy warns: jit/fp_errors.py).
"""

from __future__ import annotations

import differential
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
    """``fn`` compiled equals ``fn`` plain on fresh copies of ``args``, with no break."""
    f = astcompile.compile(fn, backend=backend)
    for _ in range(2):
        _same(f(*_fresh(args)), fn(*_fresh(args)))
    report = astcompile.explain(f, *_fresh(args))
    assert report.break_reasons == [], str(report)
    if not differential.runtime_warnings(fn, *args):  # else it runs for NumPy's warning
        assert all(r.stats.eager_calls == 0 for r in f.regions), str(report)


def _fresh(args: tuple) -> list:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


BACKENDS = pytest.mark.parametrize("backend", differential.BACKENDS)


# -- argmax / argmin ------------------------------------------------------------------------
def arg_after_loop(x, n):
    s = x[0, 0] * 0
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


def arg_rows(x, n):
    t = 0
    for i in range(n):
        t += i
    return np.argmax(x, axis=1), np.argmin(x, axis=-1), t


def arg_all(x, n):
    t = 0
    for i in range(n):
        t += i
    return np.argmax(x), t


@BACKENDS
def test_argmax_over_empty_arrays(backend):
    """Reducing an empty axis raises NumPy's ValueError; rows of no elements are no error."""
    check(arg_rows, np.zeros((0, 3)), 2, backend=backend)
    f = astcompile.compile(arg_all, backend=backend)
    for empty in (np.zeros((0, 3)), np.zeros((3, 0)), np.zeros(0)):
        with pytest.raises(ValueError):
            arg_all(empty, 2)
        with pytest.raises(ValueError):
            f(empty, 2)


# -- array constants ------------------------------------------------------------------------
def const_added(pos, n):
    g = np.array([0.0, -9.81])
    for _ in range(n):
        force = np.zeros_like(pos) + g
        force[0] = 0, 0
        pos += 0.5 * force
    return pos


def const_typed(x, n):
    out = np.zeros((n, 3))
    wide = np.zeros((n, 3), dtype=np.int64)
    twice = np.zeros((n, 3), dtype=np.uint8)
    odd = np.zeros((n, 3), dtype=np.float32)
    for i in range(n):
        table = np.array([[1.5, -2.25, 3.0], [0.1, 0.2, 0.3]])
        small = np.array([250, 3, 9], dtype=np.uint8)
        flags = np.array([True, False, True])
        out[i] = x[i] * table[1] - table[0] + small - flags
        wide[i] = np.array([-(2**63), 2**62, 7], dtype=np.int64) + i
        twice[i] = small * 2
        odd[i] = np.array([np.nan, -np.inf, -0.0], dtype=np.float32) * x[i, 0]
    return out, wide, twice, odd


def const_returned(n):
    s = 0
    for i in range(n):
        s += i
    return np.array([1.0, 2.0]) * s, np.array([[3, 4], [5, 6]]).T + s


def const_complex(x, n):
    z = np.array([1 + 2j, 3 - 1j])
    for i in range(n):
        x[i] = x[i] * 2.0
    return x * z


@BACKENDS
def test_array_constants_in_loop_regions(backend):
    pos = np.random.default_rng(1).random((4, 2))
    check(const_added, pos, 5, backend=backend)
    check(const_typed, np.linspace(-1.0, 1.0, 15).reshape(5, 3), 5, backend=backend)
    check(const_returned, 4, backend=backend)


def test_complex_array_constants_run_plain_with_numpy_results():
    f = astcompile.compile(const_complex, backend="c")
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(f(x.copy(), 3), const_complex(x.copy(), 3))
