"""2-D wave equation, leapfrog in time with a loop stencil over interior points."""

import numpy as np


def wave_2d_loops(u, u_prev, c2, steps):
    n, m = u.shape
    for _ in range(steps):
        u_next = np.zeros_like(u)
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                lap = u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4.0 * u[i, j]
                u_next[i, j] = 2.0 * u[i, j] - u_prev[i, j] + c2 * lap
        u_prev, u = u, u_next
    return u


def setup(small=False):
    n = 6 if small else 80
    u = np.zeros((n, n))
    u[n // 2, n // 2] = 1.0
    return u, u.copy(), 0.2, 3 if small else 30
