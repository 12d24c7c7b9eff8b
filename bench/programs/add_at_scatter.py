"""Scatter-add of particle charges onto a 1-D grid with np.add.at (cloud-in-cell weights)."""

import numpy as np


def add_at_scatter(positions, charges, cells):
    grid = np.zeros(cells + 1)
    left = np.floor(positions).astype(np.int64)
    frac = positions - left
    np.add.at(grid, left, charges * (1.0 - frac))
    np.add.at(grid, left + 1, charges * frac)
    grid[0] += grid[cells]
    return grid[:cells]


def setup(small=False):
    rng = np.random.default_rng(75)
    cells = 8 if small else 256
    n = 20 if small else 20000
    return rng.random(n) * cells, rng.random(n), cells
