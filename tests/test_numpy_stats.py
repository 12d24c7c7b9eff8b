"""np.average (weights, axis, keepdims, returned), np.ptp and np.count_nonzero: compiled without a graph break
on both backends, equal to NumPy's results (values, dtype, shape: the average of integers is
float64), and NumPy's errors (a zero weight sum raises ZeroDivisionError when the code runs)."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls
from test_masks import assert_compiled_same

import astcompile

rng = np.random.default_rng(4)


def averages(x):
    return (
        np.average(x),
        np.average(x, axis=0),
        np.average(x, axis=-1, keepdims=True),
        np.average(x, axis=(0, 1)),
        np.average(x, returned=True),
        np.average(x, axis=1, returned=True),
    )


def weighted(x, w):
    return (
        np.average(x, axis=1, weights=w),
        np.average(x, axis=-1, weights=w, returned=True),
        np.average(x, weights=np.abs(x) + 1),
        np.average(x, axis=0, weights=np.abs(x) + 1, keepdims=True, returned=True),
        np.average(x.T, axis=0, weights=w),
    )


def ptps(x):
    return np.ptp(x), np.ptp(x, axis=0), np.ptp(x, axis=-1, keepdims=True), np.ptp(x[:, :1], 1)


def counts(x):
    return (
        np.count_nonzero(x),
        np.count_nonzero(x > 0.25),
        np.count_nonzero(x, axis=0),
        np.count_nonzero(x, axis=(0, 1), keepdims=True),
        np.count_nonzero(x, keepdims=True),
    )


PROGRAMS = [
    (counts, lambda: (np.where(rng.random((4, 6)) > 0.5, rng.standard_normal((4, 6)), 0),)),
    (counts, lambda: (np.array([[0.0, np.nan, -0.0], [1.0, 0.0, np.inf]]),)),
    (counts, lambda: (rng.integers(-2, 2, (4, 6)).astype(np.int8),)),
    (counts, lambda: (rng.integers(-2, 2, (3, 5)) + 0j,)),
    (averages, lambda: (rng.standard_normal((4, 6)),)),
    (averages, lambda: (rng.integers(-9, 9, (4, 6)),)),
    (averages, lambda: (rng.integers(-9, 9, (4, 6)).astype(np.int8),)),
    (averages, lambda: (rng.standard_normal((4, 6)) > 0,)),
    (averages, lambda: (rng.standard_normal((4, 6)).astype(np.float32),)),
    (weighted, lambda: (rng.standard_normal((4, 6)), rng.random(6) + 0.5)),
    (weighted, lambda: (rng.integers(-9, 9, (4, 6)), rng.integers(1, 4, 6))),
    (weighted, lambda: (rng.integers(-9, 9, (4, 6)).astype(np.int8), np.ones(6, np.float32))),
    (
        weighted,
        lambda: (rng.standard_normal((4, 6)).astype(np.float32), np.ones(6, np.float32)),
    ),
    (ptps, lambda: (rng.standard_normal((4, 6)),)),
    (ptps, lambda: (rng.integers(0, 200, (4, 6)).astype(np.uint8),)),
    (ptps, lambda: (rng.integers(-100, 100, (4, 6)).astype(np.int8),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS)
def test_average_ptp_count_compile_and_match_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


def average_no_axis_weights(x, w):
    return np.average(x, weights=w)


def average_bad_weights(x, w):
    return np.average(x, axis=0, weights=w)


def average_zero_weights(x, w):
    return np.average(x, axis=1, weights=w)


@pytest.mark.parametrize("backend", BACKENDS)
def test_average_errors_are_numpys(backend):
    x = rng.standard_normal((3, 4))
    assert_same_calls(average_no_axis_weights, [(x, np.ones(4))], backend=backend)
    assert_same_calls(average_bad_weights, [(x, np.ones(4)), (x, np.ones(3))], backend=backend)
    zero = np.array([1.0, -1.0, 0.5, -0.5])
    calls = [(x, np.ones(4)), (x, zero), (x[:0], zero), (x, np.array([1.0, 1, 1, np.nan]))]
    assert_same_calls(average_zero_weights, calls, backend=backend)
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        astcompile.compile(average_zero_weights, backend=backend)(x, zero)
