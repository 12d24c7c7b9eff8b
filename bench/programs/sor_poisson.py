"""Successive over-relaxation for the 2-D Poisson equation, Python loops over the grid."""

import numpy as np


def sor_poisson(f, omega, sweeps):
    n = f.shape[0]
    h2 = (1.0 / (n - 1)) ** 2
    u = np.zeros_like(f)
    for _ in range(sweeps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                gs = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])
                u[i, j] += omega * (gs - u[i, j])
    return u


def setup(small=False):
    n = 6 if small else 40
    return np.ones((n, n)), 1.5, (2 if small else 20)
