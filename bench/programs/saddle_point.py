"""First saddle point of a matrix (row minimum and column maximum), nested loops with returns."""

import numpy as np


def saddle_point(m):
    rows, cols = m.shape
    for i in range(rows):
        for j in range(cols):
            v = m[i, j]
            is_min = True
            for k in range(cols):
                if m[i, k] < v:
                    is_min = False
                    break
            if not is_min:
                continue
            is_max = True
            for k in range(rows):
                if m[k, j] > v:
                    is_max = False
                    break
            if is_max:
                return i, j, v
    return -1, -1, 0.0


def setup(small=False):
    rng = np.random.default_rng(92)
    n = 8 if small else 120
    m = rng.random((n, n))
    m[n - 2, :] += 2.0
    return (m,)
