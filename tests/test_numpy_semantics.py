"""NumPy's value semantics at the edges, found by the random differential run: each function
here gave a silently wrong answer (or invalid C) once. Compiled results must equal NumPy's in
value, dtype, shape and Python type, and raise NumPy's exception type where NumPy raises."""

from __future__ import annotations

import numpy as np
import pytest

from differential import assert_same

BACKENDS = ["eager", "c"]


def _nan_sign(y):
    return np.copysign(y, -np.nan), np.copysign(y, np.nan), np.copysign(-np.nan, y) * 0 + y


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_negative_nan_constant_keeps_its_sign(backend):
    """``-np.nan`` has its sign bit set; C's ``NAN`` macro has not (the literal is ``-NAN``)."""
    got = assert_same(_nan_sign, np.array([1.0, -2.0]), backend=backend)
    np.testing.assert_array_equal(got[0], [-1.0, -2.0])


def _squeeze_to_zero_d(x):
    return np.squeeze(x + 1), np.squeeze(x), (x * 2)[0, ...], x.sum()[...], np.squeeze(x.sum())


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_d_array_results_stay_arrays(backend):
    """``np.squeeze`` of an array and ``x[0, ...]`` give 0-d arrays, never NumPy scalars."""
    assert_same(_squeeze_to_zero_d, np.array([1.5]), backend=backend)


def _add_zero_d(x):
    x += np.array(300)
    return x


def _store_zero_d(x):
    x[:] = np.array(7)
    return x


def _shift_zero_d(x):
    x[1:] = np.array(3) * x[:-1]
    return x


def _scan_of_zero_d(y):
    return np.cumsum(np.uint8(200) > y), np.cumsum(y + np.array(2))


def _reduce_zero_d(y):
    return y + np.sum(np.array(2.5)), y * np.max(np.float32(np.nan))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_add_zero_d, _store_zero_d, _shift_zero_d])
def test_zero_d_array_constants_in_stores_compile(backend, fn):
    """A 0-d array constant cast to another dtype is a literal in C (was ``((double))``)."""
    assert_same(fn, np.array([1.0, 2.0]), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_scan_of_zero_d, _reduce_zero_d])
def test_zero_d_array_constants_in_scans_and_reductions_compile(backend, fn):
    assert_same(fn, np.array([1.0, 300.0]), backend=backend)

