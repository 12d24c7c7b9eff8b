"""Seven-point Laplacian of a 3-D field with slices, boundary left at zero."""

import numpy as np


def laplacian_3d(u, h):
    lap = np.zeros_like(u)
    lap[1:-1, 1:-1, 1:-1] = (
        u[:-2, 1:-1, 1:-1]
        + u[2:, 1:-1, 1:-1]
        + u[1:-1, :-2, 1:-1]
        + u[1:-1, 2:, 1:-1]
        + u[1:-1, 1:-1, :-2]
        + u[1:-1, 1:-1, 2:]
        - 6.0 * u[1:-1, 1:-1, 1:-1]
    ) / (h * h)
    return lap


def setup(small=False):
    rng = np.random.default_rng(114)
    n = 5 if small else 100
    return rng.random((n, n, n)), 0.1
