"""jit/fp_errors.py: a compiled region's raised floating-point flags become NumPy's warnings
(its statements run again), whichever backend the user chose, wherever the kernel ran."""

from __future__ import annotations

import numpy as np
import pytest
from differential import TRITON, assert_same_warnings

from astcompile.runtime import parallel


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


def reciprocals(x):
    y = np.empty(x.shape[0])
    for i in range(x.shape[0]):  # independent iterations: omp parallel for
        y[i] = 1.0 / x[i]
    return y


def logs_then_prefix(x):
    y = np.empty(x.shape[0])
    y[:] = np.log(x)  # an element nest outside every loop: omp parallel for
    for i in range(1, 4):
        y[i] = y[i - 1] + y[i]
    return y


TEAMS = [reciprocals, logs_then_prefix]


@pytest.fixture
def four_threads():
    before = parallel.nthreads()
    parallel.set_num_threads(4)
    yield
    parallel.set_num_threads(before)


@pytest.mark.parametrize("fn", TEAMS, ids=[f.__name__ for f in TEAMS])
def test_a_structured_loops_team_hands_its_flags_to_the_caller(fn, four_threads):
    """A structured region's ``omp parallel`` loops gather their threads' flags onto the calling
    thread, as flat kernels do: a zero in the last thread's share warns (it was silent)."""
    x = np.ones(600_000)
    x[-1] = 0.0
    assert_same_warnings(fn, x, backend="c")


def floor_divide(a, b):
    return a // b


def remainder(a, b):
    return a % b


def both(a, b):
    return a // b + a % b * 2


def floor_divide_in_loop(a, b):
    t = np.int64(0)
    for i in range(a.shape[0]):
        t = t + a[i] // b[i]  # NumPy int64 scalars: warn as arrays do
    return t


INTS = np.array([7, -7, 3, 0])
ZEROS = np.array([2, 0, -2, 0])
INT_CASES = [
    (floor_divide, (INTS, ZEROS)),
    (remainder, (INTS, ZEROS)),
    (both, (INTS.astype(np.int8), ZEROS.astype(np.int8))),
    (both, (INTS.astype(np.uint8), ZEROS.astype(np.uint8))),
    (both, (INTS.astype(np.uint64), ZEROS.astype(np.uint64))),
    (floor_divide, (np.array([True, False]), np.array([False, True]))),
    (floor_divide, (np.array([-(2**63), 5]), np.array([-1, -1]))),  # overflow, no zero
    (remainder, (np.array([-(2**63), 5]), np.array([-1, -1]))),  # no warning
    (floor_divide, (INTS, 0)),
    (floor_divide, (7, ZEROS)),
    (floor_divide, (np.zeros(0, np.int64), np.zeros(0, np.int64))),
    (floor_divide_in_loop, (INTS, ZEROS)),
    (floor_divide, (INTS, np.array([1, 2, 3, 4]))),  # no warning
]


@pytest.mark.parametrize("fn, args", INT_CASES, ids=[c[0].__name__ for c in INT_CASES])
def test_integer_division_by_zero_warns_as_numpy_does(fn, args):
    """NumPy warns of an integer // or % by zero (and of INT_MIN // -1): the C helpers raise
    the divide-by-zero (overflow) flag exactly there, so the region reruns its statements."""
    assert_same_warnings(fn, *args, backend="c")
