"""Explicit Euler decay whose step dt is an np.float64 argument and picks the scheme in an `if`."""

import numpy as np


def np_scalar_euler_step(y0, rate, dt, steps):
    y = y0.copy()
    if dt * rate > 1.0:
        for _ in range(steps):
            y = y / (1.0 + dt * rate)
    else:
        for _ in range(steps):
            y = y - dt * rate * y
    return y


def setup(small=False):
    rng = np.random.default_rng(82)
    return rng.random(8 if small else 5000), np.float64(0.7), np.float64(0.05), 5 if small else 50
