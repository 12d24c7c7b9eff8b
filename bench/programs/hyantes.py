"""Hyantes smoothing of town populations onto a grid (Pythran test suite, loops and math)."""

import math

import numpy as np


def hyantes(xmin, ymin, xmax, ymax, step, range_, range_x, range_y, t):
    pt = np.zeros((range_x, range_y))
    for i in range(range_x):
        for j in range(range_y):
            s = 0.0
            for k in range(t.shape[0]):
                tmp = 6368.0 * math.acos(
                    math.cos(xmin + step * i)
                    * math.cos(t[k, 0])
                    * math.cos((ymin + step * j) - t[k, 1])
                    + math.sin(xmin + step * i) * math.sin(t[k, 0])
                )
                if tmp < range_:
                    s += t[k, 2] / (1 + tmp)
            pt[i, j] = s
    return pt


def setup(small=False):
    rng = np.random.default_rng(202)
    towns = 5 if small else 200
    t = np.column_stack([rng.random(towns), rng.random(towns), 1000 * rng.random(towns)])
    grid = 4 if small else 30
    return 0.0, 0.0, 1.0, 1.0, 1.0 / grid, 500.0, grid, grid, t
