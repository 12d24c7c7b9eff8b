"""Gradient of the Rosenbrock function with slices, as in scipy.optimize's test functions."""

import numpy as np


def rosen_der(x):
    xm = x[1:-1]
    xm_m1 = x[:-2]
    xm_p1 = x[2:]
    der = np.zeros_like(x)
    der[1:-1] = 200 * (xm - xm_m1**2) - 400 * (xm_p1 - xm**2) * xm - 2 * (1 - xm)
    der[0] = -400 * x[0] * (x[1] - x[0] ** 2) - 2 * (1 - x[0])
    der[-1] = 200 * (x[-1] - x[-2] ** 2)
    return der


def setup(small=False):
    rng = np.random.default_rng(109)
    return (rng.random(10 if small else 1_000_000),)
