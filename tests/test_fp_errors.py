"""jit/fp_errors.py: a compiled region's raised floating-point flags become NumPy's warnings
(its statements run again), whichever backend the user chose, wherever the kernel ran."""

from __future__ import annotations

import numpy as np
import pytest
from differential import TRITON, assert_same_warnings


def reciprocal_sum(x):
    t = 0.0
    for i in range(x.shape[0]):
        t = t + 1.0 / x[i]  # a loop of scalar updates: Triton has no form, C builds it
    return t


def reciprocal_prefix(x):
    y = np.zeros(x.shape[0])
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] + 1.0 / x[i]
    return y


HANDED_TO_C = [reciprocal_sum, reciprocal_prefix]


@pytest.mark.skipif(not TRITON, reason="triton is not installed")
@pytest.mark.parametrize("fn", HANDED_TO_C, ids=[f.__name__ for f in HANDED_TO_C])
def test_a_triton_region_handed_to_c_warns(fn):
    """The check keys on the backend that built the region: a ``backend="triton"`` region the
    accept stage handed to C raises the CPU's flags like any C region (it was silent)."""
    assert_same_warnings(fn, np.array([1.0, 0.0, 2.0]), backend="triton")
