"""Jacobi iteration for a diagonally dominant system, until the update is below tolerance."""

import numpy as np


def jacobi(A, b, tol, max_iter):
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    for it in range(max_iter):
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x, ord=np.inf) < tol:
            return x_new, it
        x = x_new
    return x, max_iter


def setup(small=False):
    rng = np.random.default_rng(32)
    n = 6 if small else 400
    A = rng.random((n, n)) + 2 * n * np.eye(n)
    return A, rng.random(n), 1e-12, 1000
