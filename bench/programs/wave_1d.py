"""1-D wave equation, leapfrog scheme: three time levels rotated every step."""

import numpy as np


def wave_1d(u0, c, steps):
    n = u0.shape[0]
    prev = u0.copy()
    cur = u0.copy()
    nxt = np.zeros(n)
    c2 = c * c
    for _ in range(steps):
        nxt[1:-1] = 2.0 * cur[1:-1] - prev[1:-1] + c2 * (cur[2:] - 2.0 * cur[1:-1] + cur[:-2])
        nxt[0] = 0.0
        nxt[-1] = 0.0
        prev, cur, nxt = cur, nxt, prev
    return cur


def setup(small=False):
    n, steps = (50, 10) if small else (3000, 500)
    x = np.linspace(0.0, 1.0, n)
    return np.sin(np.pi * x) * np.exp(-50 * (x - 0.5) ** 2), 0.5, steps
