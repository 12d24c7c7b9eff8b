"""Jacobi iteration for Laplace's equation until the change is small (while loop, Numba docs)."""

import numpy as np


def laplace_converge(grid, tol, max_iter):
    it = 0
    err = tol + 1.0
    while err > tol and it < max_iter:
        new = grid.copy()
        new[1:-1, 1:-1] = 0.25 * (
            grid[:-2, 1:-1] + grid[2:, 1:-1] + grid[1:-1, :-2] + grid[1:-1, 2:]
        )
        err = np.max(np.abs(new - grid))
        grid = new
        it += 1
    return grid, it


def setup(small=False):
    n = 8 if small else 100
    g = np.zeros((n, n))
    g[0, :] = 1.0
    return g, 1e-4, 10 if small else 200
