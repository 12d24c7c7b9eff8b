"""Least-squares polynomial fitted once, then evaluated point by point with np.polyval in a loop."""

import numpy as np


def polyfit_eval_loop(x, y, queries):
    coeffs = np.polyfit(x, y, 5)
    out = np.empty(len(queries))
    for i in range(len(queries)):
        q = queries[i]
        out[i] = np.polyval(coeffs, q) if 0.0 <= q <= 1.0 else np.nan
    return out


def setup(small=False):
    rng = np.random.default_rng(220)
    x = np.linspace(0.0, 1.0, 40)
    return (
        x,
        np.cos(3 * x) + 0.05 * rng.standard_normal(40),
        rng.random(20 if small else 20000) * 1.1,
    )
