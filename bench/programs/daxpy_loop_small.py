"""BLAS-1 daxpy and ddot written as index loops over length-16 arrays (tiny, many calls)."""

import numpy as np


def daxpy_loop_small(alpha, x, y):
    out = np.empty_like(y)
    for i in range(x.shape[0]):
        out[i] = alpha * x[i] + y[i]
    dot = 0.0
    for i in range(x.shape[0]):
        dot += out[i] * x[i]
    return out, dot


def setup(small=False):
    rng = np.random.default_rng(213)
    return 1.5, rng.random(16), rng.random(16)
