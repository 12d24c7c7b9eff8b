"""Welford's online mean and variance over a stream of rows (vector state, scalar count)."""

import numpy as np


def welford(rows):
    count = 0
    mean = np.zeros(rows.shape[1])
    m2 = np.zeros(rows.shape[1])
    for row in rows:
        count += 1
        delta = row - mean
        mean += delta / count
        m2 += delta * (row - mean)
    return mean, m2 / (count - 1)


def setup(small=False):
    rng = np.random.default_rng(22)
    return (rng.standard_normal((20 if small else 5000, 8)) * 3.0 + 1.0,)
