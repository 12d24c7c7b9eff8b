"""Pairwise cosine similarity of rows, written for @njit: explicit loops into np.empty."""

import math

import numpy as np


def cosine_matrix_njit(x):
    n, d = x.shape
    norms = np.empty(n)
    for i in range(n):
        s = 0.0
        for k in range(d):
            s += x[i, k] * x[i, k]
        norms[i] = math.sqrt(s)
    out = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            dot = 0.0
            for k in range(d):
                dot += x[i, k] * x[j, k]
            out[i, j] = dot / (norms[i] * norms[j])
            out[j, i] = out[i, j]
    return out


def setup(small=False):
    rng = np.random.default_rng(312)
    return (rng.standard_normal((6, 4) if small else (100, 16)),)
