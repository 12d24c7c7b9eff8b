"""Weighted distance matrix between two point sets, loops over points as written for Numba."""

import numpy as np


def wdist(A, B, W):
    m = A.shape[1]
    n = B.shape[1]
    D = np.zeros((m, n))
    for ii in range(m):
        for jj in range(n):
            wdiff = (A[:, ii] - B[:, jj]) / W[:, ii]
            D[ii, jj] = np.sqrt((wdiff**2).sum())
    return D


def setup(small=False):
    rng = np.random.default_rng(119)
    k, m, n = (3, 4, 5) if small else (8, 60, 80)
    return rng.random((k, m)), rng.random((k, n)), rng.random((k, m)) + 0.5
