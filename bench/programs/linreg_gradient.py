"""Linear regression by batch gradient descent, as in Numba's examples (dot, transpose, loop)."""

import numpy as np


def linreg_gradient(x, y, iterations, alpha):
    theta = np.zeros(x.shape[1])
    m = y.shape[0]
    for _ in range(iterations):
        error = np.dot(x, theta) - y
        theta = theta - alpha * np.dot(x.T, error) / m
    return theta


def setup(small=False):
    rng = np.random.default_rng(79)
    n, d = (10, 3) if small else (5000, 8)
    x = rng.standard_normal((n, d))
    y = x @ np.arange(1.0, d + 1) + 0.1 * rng.standard_normal(n)
    return x, y, 5 if small else 200, 0.05
