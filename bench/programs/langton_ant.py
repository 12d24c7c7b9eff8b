"""Langton's ant on a NumPy grid of 0/1 cells: turn, flip, step, wrapping at the edges."""

import numpy as np


def langton_ant(n, steps):
    grid = np.zeros((n, n), dtype=np.int8)
    r = c = n // 2
    d = 0
    moves = ((-1, 0), (0, 1), (1, 0), (0, -1))
    for _ in range(steps):
        if grid[r, c] == 0:
            d = (d + 1) % 4
            grid[r, c] = 1
        else:
            d = (d - 1) % 4
            grid[r, c] = 0
        dr, dc = moves[d]
        r = (r + dr) % n
        c = (c + dc) % n
    return grid.sum(), r, c


def setup(small=False):
    return (8, 50) if small else (80, 30000)
