"""Programs written the way other people write NumPy and Python numerics (type checks on
arguments, ``isinstance`` dispatch, ``type(x).__name__`` in results), each called several times
with changed inputs, compiled against plain (tests/differential.py)."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls


def dispatch_on_scalar_type(a, s):
    """A scalar argument steers the code by its Python type (a new type is a new trace)."""
    if isinstance(s, bool):
        return np.sin(a), "bool"
    if isinstance(s, int):
        return np.sin(a) * s, type(s).__name__
    if isinstance(s, (float, np.floating)):
        return np.cos(a) - s, type(s).__name__
    return np.tan(a), type(s)


def types_of_results(a, s):
    """``type()`` and ``isinstance()`` of values the region computes: a NumPy scalar, a
    loop-carried number, a view, a size."""
    t = 0
    for i in range(3):
        t = t + a[i] * s
    n = a.shape[0]
    b = np.sqrt(a) * t
    return b, type(t), isinstance(t, float), isinstance(a[0], np.float32), type(a[:1]), type(n)


SCALARS = [3, True, 3.5, np.float64(2.0), np.int32(1), 4, 1 + 2j]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [dispatch_on_scalar_type, types_of_results])
def test_type_checks_answer_for_the_traced_value(fn, backend):
    dtypes = [np.float64, np.float32]
    calls = [(np.linspace(0.5, 1.0, 50 + i, dtype=dtypes[i % 2]), s) for i, s in enumerate(SCALARS)]
    assert_same_calls(fn, calls, backend)
