"""Cholesky factor of an SPD matrix by the textbook loops with math.sqrt (Numba style)."""

import math

import numpy as np


def cholesky_loops(a):
    n = a.shape[0]
    low = np.zeros_like(a)
    for j in range(n):
        s = a[j, j]
        for k in range(j):
            s -= low[j, k] * low[j, k]
        low[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            s = a[i, j]
            for k in range(j):
                s -= low[i, k] * low[j, k]
            low[i, j] = s / low[j, j]
    return low


def setup(small=False):
    rng = np.random.default_rng(13)
    n = 5 if small else 90
    m = rng.normal(size=(n, n))
    return (m @ m.T + n * np.eye(n),)
