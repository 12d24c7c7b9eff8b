"""Loops with ``assert`` messages computed from loop values (tests/test_loop_control.py).

Kept out of the test modules: pytest rewrites the ``assert`` statements of those, which would
change the very messages the tests compare."""

from __future__ import annotations

import numpy as np


def bounded_sum(x, limit):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
        assert total < limit, f"sum {total} passed {limit} at row {i}"
    return total


def bounded_tuple(x, limit):
    total = np.zeros(x.shape[1])
    for i, row in enumerate(x):
        total = total + row
        assert total.max() < limit, ("too far", i, limit)
    return total


def sqrt_in_place(x):
    for i in range(x.shape[0]):
        assert x[i] >= 0, f"negative at {i}: {x[i]}"
        x[i] = np.sqrt(x[i])
    return x


def coded(x):
    for i in range(x.shape[0]):
        assert x[i] != 0, 42  # noqa: RUF040 - a non-string message is what is tested
    return x.sum()
