"""Gaussian elimination with partial pivoting and back substitution, loops over rows."""

import numpy as np


def gauss_elim(A, b):
    A = A.astype(np.float64)
    b = b.astype(np.float64)
    n = A.shape[0]
    for k in range(n - 1):
        p = k + np.argmax(np.abs(A[k:, k]))
        if p != k:
            A[[k, p]] = A[[p, k]]
            b[[k, p]] = b[[p, k]]
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            A[i, k:] -= f * A[k, k:]
            b[i] -= f * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - A[i, i + 1 :] @ x[i + 1 :]) / A[i, i]
    return x


def setup(small=False):
    rng = np.random.default_rng(29)
    n = 6 if small else 80
    return rng.standard_normal((n, n)), rng.standard_normal(n)
