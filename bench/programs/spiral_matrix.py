"""Fill a square NumPy matrix with 0..n*n-1 in spiral order, turning with direction tuples."""

import numpy as np


def spiral_matrix(n):
    grid = np.full((n, n), -1, dtype=np.int64)
    dirs = ((0, 1), (1, 0), (0, -1), (-1, 0))
    r = c = d = 0
    for value in range(n * n):
        grid[r, c] = value
        dr, dc = dirs[d]
        nr, nc = r + dr, c + dc
        if not (0 <= nr < n and 0 <= nc < n) or grid[nr, nc] != -1:
            d = (d + 1) % 4
            dr, dc = dirs[d]
            nr, nc = r + dr, c + dc
        r, c = nr, nc
    return grid


def setup(small=False):
    return (5 if small else 150,)
