"""Pairwise Euclidean distances with three explicit loops, written for @njit."""

import numpy as np


def pairwise_loops(X):
    n, d = X.shape
    D = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(d):
                t = X[i, k] - X[j, k]
                s += t * t
            D[i, j] = np.sqrt(s)
    return D


def setup(small=False):
    rng = np.random.default_rng(107)
    return (rng.random((6, 3) if small else (300, 3)),)
