"""Exponential smoothing of a series, element by element into a new array."""

import numpy as np


def smoothing(x, alpha):
    s = x.copy()
    for i in range(1, len(s)):
        s[i] = alpha * s[i] + (1 - alpha) * s[i - 1]
    return s


def setup(small=False):
    rng = np.random.default_rng(120)
    return rng.random(10 if small else 200_000), 0.1
