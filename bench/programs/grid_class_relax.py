"""A Grid class holding a 2-D array; its relax() method does Jacobi sweeps with explicit loops."""

import numpy as np


class Grid:
    def __init__(self, values):
        self.u = values.copy()

    def relax(self, sweeps):
        n, m = self.u.shape
        for _ in range(sweeps):
            new = self.u.copy()
            for i in range(1, n - 1):
                for j in range(1, m - 1):
                    new[i, j] = 0.25 * (
                        self.u[i - 1, j] + self.u[i + 1, j] + self.u[i, j - 1] + self.u[i, j + 1]
                    )
            self.u = new
        return self.u


def grid_class_relax(values, sweeps):
    grid = Grid(values)
    return grid.relax(sweeps)


def setup(small=False):
    rng = np.random.default_rng(72)
    n = 6 if small else 40
    return rng.random((n, n)), 2 if small else 5
