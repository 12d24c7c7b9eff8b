"""Python numbers under tracing (trace/sym_numbers.py): results have NumPy's Python types."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same_calls

import astcompile


def _carried_int_against_numpy_scalars(x):
    m = 0
    for i in range(x.shape[0]):
        m = max(m, i)
    return m > np.int64(-2), m == np.int32(3), m > np.float64(2.0), np.int64(-2) < m


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
def test_a_python_int_from_a_loop_compared_with_a_numpy_scalar_is_a_numpy_bool(backend):
    """``m > np.int64(-2)`` is an ``np.bool_`` whatever ``m`` is: a Python int that the loop
    left (a run-time value) compared as a Python bool. Three calls, the second with a loop
    that does not run (``m`` stays the constant 0)."""
    calls = [(np.ones(3),), (np.ones(0),), (np.ones(5),)]
    assert_same_calls(_carried_int_against_numpy_scalars, calls, backend=backend)


def _branch_on_float(x, t):
    if t > 0:
        y = x * 2.0
    else:
        y = x + t
    if 0.25 <= t < 0.75:
        y = y - 1.0
    return y


_SIDES = [-1.0, 2.0, 0.0, -0.0, 0.5, 0.75, float("nan"), float("inf"), 3, 0, -2, 1e308, 0.25]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_if_on_a_float_argument_is_guarded_by_its_outcome(backend):
    """``if t > 0`` on a Python number guards the comparison's outcome, not ``t``: a new t
    each call (a step size, a temperature) traced every value up to cache_size_limit and
    warned; now one trace per side (and per int/float class), results as plain throughout."""
    calls = [(np.arange(4.0), t) for t in _SIDES + [v * 0.37 for v in range(-20, 20)]]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no cache_size_limit warning
        assert_same_calls(_branch_on_float, calls, backend=backend)
    compiled = astcompile.compile(_branch_on_float, backend=backend)
    for x, t in calls:
        compiled(x, t)
    assert compiled.regions[0].stats.traces <= 6
