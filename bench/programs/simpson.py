"""Composite Simpson and trapezoid integrals of a sampled function."""

import numpy as np


def simpson(a, b, n):
    x = np.linspace(a, b, n + 1)
    f = np.exp(-x * x) * np.cos(3.0 * x)
    h = (b - a) / n
    trap = h * (0.5 * f[0] + f[1:-1].sum() + 0.5 * f[-1])
    simp = h / 3.0 * (f[0] + 4.0 * f[1:-1:2].sum() + 2.0 * f[2:-1:2].sum() + f[-1])
    return simp, trap


def setup(small=False):
    return -2.0, 3.0, (10 if small else 2_000_000)
