"""Lyapunov exponents of the logistic map over a range of r, an element loop into an array."""

import numpy as np


def logistic_map(rs, n_iter):
    out = np.empty_like(rs)
    for i in range(rs.shape[0]):
        r = rs[i]
        x = 0.5
        lyap = 0.0
        for _ in range(n_iter):
            x = r * x * (1.0 - x)
            lyap += np.log(abs(r - 2.0 * r * x))
        out[i] = lyap / n_iter
    return out


def setup(small=False):
    return np.linspace(2.5, 4.0, 8 if small else 400), 20 if small else 500
