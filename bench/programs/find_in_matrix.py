"""Position of the first entry above a level in a 2-D array, `return` inside nested loops."""

import numpy as np


def find_in_matrix(grid, level):
    rows, cols = grid.shape
    for i in range(rows):
        for j in range(cols):
            if grid[i, j] > level:
                return i, j, grid[i, j]
    return -1, -1, 0.0


def setup(small=False):
    rng = np.random.default_rng(80)
    n = 6 if small else 300
    grid = rng.random((n, n)) * 0.9
    grid[n - 2, n // 2] = 0.95
    return grid, 0.93
