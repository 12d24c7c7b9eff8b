"""Gauss-Seidel sweeps of the 2-D Poisson equation in place, with a residual norm each sweep."""

import numpy as np


def gauss_seidel(u, f, h, sweeps):
    u = u.copy()
    n, m = u.shape
    h2 = h * h
    residuals = []
    for _ in range(sweeps):
        change = 0.0
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                new = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])
                change += (new - u[i, j]) ** 2
                u[i, j] = new
        residuals.append(np.sqrt(change))
    return u, residuals


def setup(small=False):
    rng = np.random.default_rng(59)
    n = 6 if small else 120
    return np.zeros((n, n)), rng.random((n, n)), 1.0 / (n - 1), 2 if small else 10
