"""Numba's 5-minute guide go_fast: tanh of the diagonal summed, then added to the array."""

import numpy as np


def go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


def setup(small=False):
    n = 10 if small else 100
    return (np.arange(n * n).reshape(n, n),)
