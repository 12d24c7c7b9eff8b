"""Full 1-D convolution with two explicit loops over NumPy arrays, written for @njit."""

import numpy as np


def convolve_loop(x, k):
    n, m = x.shape[0], k.shape[0]
    out = np.zeros(n + m - 1)
    for i in range(n):
        for j in range(m):
            out[i + j] += x[i] * k[j]
    return out


def setup(small=False):
    rng = np.random.default_rng(132)
    return rng.random(10 if small else 20000), rng.random(5 if small else 31)
