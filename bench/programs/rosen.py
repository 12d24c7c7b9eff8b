"""The Rosenbrock function of a vector, vectorised on slices (numpy-benchmarks rosen)."""

import numpy as np


def rosen(x):
    t0 = 100 * (x[1:] - x[:-1] ** 2) ** 2
    t1 = (1 - x[:-1]) ** 2
    return np.sum(t0 + t1)


def setup(small=False):
    n = 10 if small else 1_000_000
    return (np.linspace(-1.0, 1.5, n),)
