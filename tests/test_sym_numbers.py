"""Python numbers under tracing (trace/sym_numbers.py): results have NumPy's Python types."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same_calls


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
