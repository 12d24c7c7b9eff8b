"""Least-squares slope and intercept from sums over two arrays (numpy-benchmarks lstsqr)."""

import numpy as np


def lstsqr(x, y):
    x_avg = np.average(x)
    y_avg = np.average(y)
    dx = x - x_avg
    var_x = np.sum(dx**2)
    cov_xy = np.sum(dx * (y - y_avg))
    slope = cov_xy / var_x
    y_interc = y_avg - slope * x_avg
    return slope, y_interc


def setup(small=False):
    rng = np.random.default_rng(218)
    n = 10 if small else 1_000_000
    x = rng.random(n)
    return x, 2 * x + 0.1 * rng.random(n)
