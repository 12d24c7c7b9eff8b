"""Conjugate gradient for a symmetric positive definite system, a while loop on the residual."""

import numpy as np


def conjugate_gradient(A, b, tol):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    it = 0
    while np.sqrt(rs) > tol and it < b.shape[0]:
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
        it += 1
    return x, it


def setup(small=False):
    rng = np.random.default_rng(33)
    n = 8 if small else 300
    m = rng.standard_normal((n, n))
    return m @ m.T + n * np.eye(n), rng.standard_normal(n), 1e-10
