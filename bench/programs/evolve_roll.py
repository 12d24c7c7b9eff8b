"""Diffusion steps with a Laplacian built from np.roll, in a helper function (numpy-benchmarks)."""

import numpy as np


def laplacian(grid):
    return (
        np.roll(grid, +1, 0)
        + np.roll(grid, -1, 0)
        + np.roll(grid, +1, 1)
        + np.roll(grid, -1, 1)
        - 4 * grid
    )


def evolve_roll(grid, dt, steps):
    D = 1.0
    for _ in range(steps):
        grid = grid + dt * D * laplacian(grid)
    return grid


def setup(small=False):
    rng = np.random.default_rng(204)
    n = 8 if small else 128
    return rng.random((n, n)), 0.1, 3 if small else 20
