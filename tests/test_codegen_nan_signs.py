"""NaN results carry NumPy's sign bit (targets/c/nan_signs.py): out of a function's domain, and
from a NaN argument, in fused kernels (libmvec's vector functions) and in loops alike."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same_signs, run_both

from astcompile.ir.ops import Op
from astcompile.targets.c.nan_signs import numpy_nan_signs

_SPECIAL = np.array([2.0, -2.0, np.nan, -np.nan, np.inf, -np.inf, 0.5, -0.0, -3.0])


def inverse_trig_and_logs(x):
    return np.arcsin(x), np.arccos(x), np.arctanh(x), np.log10(x), np.tanh(x), np.sin(x)


def in_a_loop(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = np.arcsin(x[i]) * 2.0 - np.arccos(x[i])
    return out


def divisions(a, x):
    return a / a, a[1] / a[1], x // np.nan, np.floor_divide(x, x[::-1]), x % -np.nan


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("repeat", [1, 50])
def test_nan_results_have_numpys_sign(backend, dtype, repeat):
    """``np.arcsin(2.0)`` is ``-nan`` in NumPy, ``+nan`` from libmvec's vector ``asin``."""
    x = np.tile(_SPECIAL.astype(dtype), repeat)
    for fn, args in [(inverse_trig_and_logs, (x,)), (in_a_loop, (x,))]:
        expected, got = run_both(fn, *args, backend=backend)
        assert_same_signs(got, expected)
    expected, got = run_both(divisions, np.array([True, False]), x, backend=backend)
    assert_same_signs(got, expected)


def test_the_rule_is_asked_of_numpy():
    """NaN arguments keep their sign in NumPy's arcsin; a number outside its domain gives
    x86's default NaN, which is negative."""
    keep, negative = numpy_nan_signs(Op.ARCSIN, np.dtype(np.float64))
    assert (keep, negative) == (0, int(np.signbit(np.arcsin(np.float64(2.0)))))


def picks_of_signed_zeros(a, b):
    return np.maximum(a, b), np.minimum(a, b), np.maximum(b, a), np.clip(a, 0.0, 1.0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_equal_zeros_pick_numpys_operand(backend, dtype):
    """Of two equal values ``np.maximum``/``np.minimum`` give the second (``maximum(-0.0,
    0.0)`` is ``0.0``), ``np.clip`` keeps ``x`` at a bound equal to it: compiled code picked
    the first for both."""
    a = np.tile(np.array([-0.0, 0.0, np.nan, 1.0], dtype), 10)
    b = np.tile(np.array([0.0, -0.0, -0.0, np.nan], dtype), 10)
    expected, got = run_both(picks_of_signed_zeros, a, b, backend=backend)
    assert_same_signs(got, expected)


def fmax_and_fmin(a, b):
    return np.fmax(a, b) * 2.0, np.fmin(a, b) * 2.0, np.fmax(b, a) - 1.0, np.fmin(b, a)


@pytest.mark.parametrize("backend", [*BACKENDS, *TRITON])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [3, 13, 64])
def test_fmax_and_fmin_of_equal_zeros_give_numpys_operand(backend, dtype, n):
    """NumPy's fmax of ``-0.0`` and ``0.0`` over arrays gives the second over whole SIMD
    vectors and picks by position in its scalar tail: C picked the first everywhere (wrong
    for long arrays), Triton the second (wrong for short ones). Such nodes run in NumPy."""
    rng = np.random.default_rng(n)
    a, b = (np.where(rng.random(n) < 0.5, -0.0, 0.0).astype(dtype) for _ in range(2))
    a[1], b[2] = np.nan, np.nan
    expected, got = run_both(fmax_and_fmin, a, b, backend=backend)
    assert_same_signs(got, expected)


def fmax_and_fmin_of_items(a, b):
    out = np.empty((2, a.shape[0]), a.dtype)
    for i in range(a.shape[0]):
        out[0, i] = np.fmax(a[i], b[i])
        out[1, i] = np.fmin(b[i], a[i])
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fmax_and_fmin_of_equal_zero_items_give_numpys_operand(backend, dtype):
    """On 0-d values (a loop's items) NumPy's float64 fmax keeps the first of ``-0.0`` and
    ``0.0``, float32 the second: compiled loops gave the vector loop's second for both. (Not
    Triton: it runs such a loop as one vector kernel, so the items' rule is not seen.)"""
    a = np.array([-0.0, 0.0, -0.0, np.nan, 1.0], dtype)
    b = np.array([0.0, -0.0, -0.0, -0.0, np.nan], dtype)
    expected, got = run_both(fmax_and_fmin_of_items, a, b, backend=backend)
    assert_same_signs(got, expected)
