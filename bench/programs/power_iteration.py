"""Power iteration for the dominant eigenpair, stopping when the Rayleigh quotient settles."""

import numpy as np


def power_iteration(A, v, tol, max_iter):
    lam = 0.0
    for it in range(max_iter):
        w = A @ v
        v = w / np.linalg.norm(w)
        new = v @ A @ v
        if abs(new - lam) < tol:
            return new, v, it
        lam = new
    return lam, v, max_iter


def setup(small=False):
    rng = np.random.default_rng(31)
    n = 8 if small else 300
    m = rng.standard_normal((n, n))
    return m @ m.T, np.ones(n), 1e-10, 500
