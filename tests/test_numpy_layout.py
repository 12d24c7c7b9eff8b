"""NumPy's shape and layout functions (trace/numpy_layout.py): which results are views of their
argument and which are copies, as NumPy decides it from the argument's layout."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same


def _ravel_then_write(x):
    r = x.ravel()
    r[0] = 99.0
    return r, x.reshape(-1)


def _ravel(x):
    return x.ravel(), np.ravel(x) * 2.0


def _ravel_of_a_slice_then_write(x):
    r = x[1:].ravel()
    r += 1.0
    return x * 2.0


def _arrays():
    base = np.arange(24.0).reshape(4, 6)
    return [base[0], base[0, ::2], base[:, ::2], base.T, np.asfortranarray(base), base[::-1]]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_ravel, _ravel_then_write, _ravel_of_a_slice_then_write])
@pytest.mark.parametrize("k", range(len(_arrays())))
def test_ravel_is_a_view_only_of_a_c_contiguous_array(backend, fn, k):
    """``x.ravel()`` copies any array that is not C-contiguous, also where ``reshape(-1)``
    would be a view (``x[::2]``, ``x[:, ::2]``): writing into it must not reach ``x``."""
    assert_same(fn, _arrays()[k], backend=backend)
