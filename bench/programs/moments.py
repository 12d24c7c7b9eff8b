"""Sample moments: mean, variance, skewness and excess kurtosis of a large sample."""

import numpy as np


def moments(x):
    n = x.size
    mean = x.sum() / n
    d = x - mean
    m2 = (d * d).sum() / n
    m3 = (d * d * d).sum() / n
    m4 = (d * d * d * d).sum() / n
    skew = m3 / m2**1.5
    kurt = m4 / (m2 * m2) - 3.0
    return mean, m2 * n / (n - 1), skew, kurt


def setup(small=False):
    rng = np.random.default_rng(16)
    return (rng.gamma(2.0, 1.5, 100 if small else 2_000_000),)
