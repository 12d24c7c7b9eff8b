"""Doolittle LU decomposition without pivoting, inner products as slices."""

import numpy as np


def lu_decomp(A):
    n = A.shape[0]
    L = np.eye(n)
    U = np.zeros((n, n))
    for i in range(n):
        for k in range(i, n):
            U[i, k] = A[i, k] - np.dot(L[i, :i], U[:i, k])
        for k in range(i + 1, n):
            L[k, i] = (A[k, i] - np.dot(L[k, :i], U[:i, i])) / U[i, i]
    return L, U


def setup(small=False):
    rng = np.random.default_rng(30)
    n = 6 if small else 60
    return (rng.standard_normal((n, n)) + n * np.eye(n),)
