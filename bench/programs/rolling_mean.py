"""Rolling mean and standard deviation over a window, from cumulative sums."""

import numpy as np


def rolling_mean(x, window):
    c1 = np.concatenate((np.zeros(1), np.cumsum(x)))
    c2 = np.concatenate((np.zeros(1), np.cumsum(x * x)))
    s1 = c1[window:] - c1[:-window]
    s2 = c2[window:] - c2[:-window]
    mean = s1 / window
    var = np.maximum(s2 / window - mean * mean, 0.0)
    return mean, np.sqrt(var)


def setup(small=False):
    rng = np.random.default_rng(18)
    return rng.standard_normal(100 if small else 1_000_000) + 3.0, 25
