"""Bootstrap confidence interval of the mean from precomputed resampling indices."""

import numpy as np


def bootstrap(x, idx, alpha):
    b = idx.shape[0]
    means = np.empty(b)
    for k in range(b):
        means[k] = x[idx[k]].mean()
    lo = np.percentile(means, 100 * alpha / 2)
    hi = np.percentile(means, 100 * (1 - alpha / 2))
    return means.mean(), lo, hi


def setup(small=False):
    rng = np.random.default_rng(19)
    n, b = (30, 10) if small else (1000, 1000)
    x = rng.exponential(2.0, n)
    return x, rng.integers(0, n, size=(b, n)), 0.05
