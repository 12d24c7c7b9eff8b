"""First pair of particles closer than a radius, Numba @njit style: `return` inside two loops."""

import numpy as np


def first_collision(pos, radius):
    n = pos.shape[0]
    r2 = radius * radius
    for a in range(n):
        for b in range(a + 1, n):
            dx = pos[a, 0] - pos[b, 0]
            dy = pos[a, 1] - pos[b, 1]
            if dx * dx + dy * dy < r2:
                return a, b
    return -1, -1


def setup(small=False):
    rng = np.random.default_rng(91)
    n = 10 if small else 500
    pos = rng.random((n, 2)) * 100.0
    pos[n - 1] = pos[n - 4] + 1e-3
    return pos, 0.01
