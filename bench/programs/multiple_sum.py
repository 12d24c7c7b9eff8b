"""Row-wise sums of differences to every other row (numpy-benchmarks multiple_sum)."""

import numpy as np


def multiple_sum(array):
    rows = array.shape[0]
    cols = array.shape[1]
    out = np.zeros((rows, cols))
    for row in range(0, rows):  # noqa: PIE808 - as the benchmark writes it
        out[row, :] = np.sum(array - array[row, :], 0)
    return out


def setup(small=False):
    rng = np.random.default_rng(203)
    n = 5 if small else 300
    return (rng.random((n, 20)),)
