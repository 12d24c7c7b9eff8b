"""1-D heat equation: explicit finite differences, a time loop over slices, fixed ends."""

import numpy as np


def heat_1d(u, alpha, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def setup(small=False):
    n, steps = (64, 20) if small else (4000, 400)
    x = np.linspace(0.0, 1.0, n)
    u = np.exp(-200.0 * (x - 0.3) ** 2)
    return u, 0.24, steps
