"""NumPy's errors at the limits of a dtype (trace/limits.py): raised compiled where NumPy
raises them, also for a value nothing reads."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same_calls


def unread_power(x, y):
    unused = x**y  # noqa: F841 - NumPy raises here though nothing reads it
    return x + 1


def unread_power_before_a_store(x, y):
    x[0] = 5
    unused = np.power(y, x)  # noqa: F841
    x[1] = 6
    return x


def read_power(x, k):
    return x**k + 1


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
def test_an_integer_to_a_negative_power_raises_though_nothing_reads_it(backend):
    """``x ** y`` of integers with a negative ``y`` raises ValueError in NumPy; the graph kept
    only what the outputs read, so compiled, nothing raised."""
    x, y = np.array([1, -2, 3]), np.array([2, 0, 1])
    empty = np.ones((0, 3), np.int64)
    calls = [(x, y), (x, -y), (x, x), (empty, -y), (np.int64(2), np.int64(-1))]
    assert_same_calls(unread_power, calls, backend=backend)
    calls = [(np.array([1, 2]), np.array([3, 1])), (np.array([1, -2]), np.array([3, 1]))]
    assert_same_calls(unread_power_before_a_store, calls, backend=backend)
    assert_same_calls(read_power, [(x, 2), (x, -1), (x.astype(np.uint8), 3)], backend=backend)


def unread_items(x, i, xs):
    unused = x[i, -1]  # noqa: F841 - NumPy raises IndexError here though nothing reads it
    dead = xs[i]  # noqa: F841 - Python's "list index out of range"
    for k in range(i + 2):
        skipped = x[k]  # noqa: F841
    return x + 1


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
def test_an_index_out_of_range_raises_though_nothing_reads_it(backend):
    """``x[i]`` with ``i`` an argument is indexed when the code runs, by a node nothing read:
    it was dropped with the graph's unread nodes, and compiled, nothing raised."""
    x, xs = np.arange(6.0).reshape(2, 3), [1, 2, 3]
    calls = [(x, 1, xs), (x, 2, xs), (x, -3, xs), (x, 0, xs), (x, -1, xs[:1]), (x, 1, xs[:1])]
    assert_same_calls(unread_items, calls, backend=backend)


def loop_offsets(y, n):
    s = y.copy()
    for i in range(n):
        s = s + i * 100
    return s


def loop_products(y, n):
    t = y[0]
    for i in range(n):
        t = t * (i + 126)
    return t


def loop_stores(y, n):
    out = y.copy()
    for i in range(n):
        out[0] = out[0] + (i + 126)
    return out


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
def test_an_int_outside_the_dtype_is_named_in_the_overflow_error(backend):
    """NEP 50: a Python int that does not fit the array's dtype raises ``OverflowError:
    Python integer 200 out of bounds for int8``; a loop's int is checked when the code runs,
    and the message names its value as NumPy's does (the differential helper compares the
    message of an OverflowError)."""
    i8, u8 = np.array([1, 2], np.int8), np.array([1, 2], np.uint8)
    assert_same_calls(loop_offsets, [(i8, 1), (i8, 3), (u8, 4)], backend=backend)
    assert_same_calls(loop_products, [(i8, 1), (i8, 3)], backend=backend)
    assert_same_calls(loop_stores, [(i8, 2), (u8, 200)], backend=backend)


def loop_fill(x, v):
    for i in range(x.shape[0]):
        x[i] = v
    return x


def slice_fill(x, v):
    x[:] = v
    return x


BIG = [np.uint64(2**63 + 5), np.uint64(2**64 - 1), 2**63, np.uint64(7), 2**31, 300, -1]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [loop_fill, slice_fill])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.uint32, np.uint64])
def test_a_uint64_above_int64_into_a_signed_array_is_too_large_for_a_c_long(backend, fn, dtype):
    """NumPy converts a stored int to a C long first for a signed dtype: a uint64 (or Python
    int) above int64 raises ``OverflowError: Python int too large to convert to C long``, not
    "out of bounds for int64" (the differential helper compares both messages)."""
    calls = [(np.ones(3, dtype), v) for v in BIG]
    assert_same_calls(fn, calls, backend=backend)
