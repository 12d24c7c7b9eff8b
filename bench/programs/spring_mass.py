"""Chain of masses and springs: list of constants mixed into array maths, velocity Verlet."""

import numpy as np


def spring_mass(x, v, steps, dt):
    k, damping, rest = [4.0, 0.02, 1.0]
    for _ in range(steps):
        stretch = np.diff(x) - rest
        f = np.zeros_like(x)
        f[:-1] += k * stretch
        f[1:] -= k * stretch
        f -= damping * v
        v = v + dt * f
        x = x + dt * v
    return x, v


def setup(small=False):
    rng = np.random.default_rng(51)
    n = 6 if small else 200
    return (
        np.arange(n, dtype=np.float64) + 0.1 * rng.standard_normal(n),
        np.zeros(n),
        (5 if small else 2000),
        0.01,
    )
