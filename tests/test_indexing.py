"""Stores as NumPy makes them (trace/indexing.py): a value with more axes than its place."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same_calls


def element_from_a_copy(m, a):
    m[-1] = a.copy()
    return m


def into_itself_in_a_loop(a):
    for i in range(a.shape[0]):
        a[i] = a
    return a


def row_from_a_2d_value(m, a):
    m[0] = a
    for i in range(1, m.shape[0]):
        m[i] = a * i
    return m


def only_if_a_branch_runs(m, a, x):
    for i in range(m.shape[0]):
        if x[i] > 100:
            m[i] = a
    return m


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
@pytest.mark.parametrize(
    "fn, calls",
    [
        (element_from_a_copy, [(np.zeros(3), np.array([5.0])), (np.zeros((3, 2)), np.ones(1))]),
        (into_itself_in_a_loop, [(np.array([7.0]),), (np.array([7.0]),)]),
        (row_from_a_2d_value, [(np.zeros((3, 2)), np.ones((1, 2)))] * 2),
        (row_from_a_2d_value, [(np.zeros((3, 2)), np.ones((1, 1, 2)))] * 2),
        (
            only_if_a_branch_runs,
            [(np.zeros(3), np.ones(1), x) for x in (np.zeros(3), np.full(3, 200.0))],
        ),
    ],
)
def test_a_value_with_leading_size_one_axes_stores_as_in_numpy(backend, fn, calls):
    """A size-1 array stored into one element raises NumPy's error (NumPy 2.4: ValueError)
    where the compiled code raised CompileError (IndexError) on every call; into a row, its
    leading size-1 axes are dropped. A store in a branch that never runs raises nothing."""
    assert_same_calls(fn, calls, backend=backend)
