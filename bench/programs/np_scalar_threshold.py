"""Soft thresholding whose level arrives as an np.float64 (from a reduction) and steers an `if`."""

import numpy as np


def np_scalar_threshold(x, level):
    if level <= 0.0:
        return x.copy()
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        v = x[i]
        if v > level:
            out[i] = v - level
        elif v < -level:
            out[i] = v + level
        else:
            out[i] = 0.0
    return out


def setup(small=False):
    rng = np.random.default_rng(81)
    x = rng.standard_normal(16 if small else 20000)
    return x, np.abs(x).mean()
