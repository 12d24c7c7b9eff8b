"""Pearson correlation matrix of the columns of a data table, computed by hand."""

import numpy as np


def correlation(data):
    n = data.shape[0]
    mean = data.mean(axis=0)
    centred = data - mean
    std = np.sqrt((centred**2).sum(axis=0) / n)
    z = centred / std
    return z.T @ z / n


def setup(small=False):
    rng = np.random.default_rng(20)
    n, m = (20, 4) if small else (20000, 32)
    base = rng.standard_normal((n, m))
    base[:, 1] += 0.5 * base[:, 0]
    return (base,)
