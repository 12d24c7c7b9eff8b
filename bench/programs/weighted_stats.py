"""Weighted mean, variance and a weighted histogram of grouped measurements."""

import numpy as np


def weighted_stats(x, w, groups, n_groups):
    mean = np.average(x, weights=w)
    var = np.average((x - mean) ** 2, weights=w)
    per_group = np.bincount(groups, weights=w * x, minlength=n_groups)
    totals = np.bincount(groups, weights=w, minlength=n_groups)
    return mean, var, per_group / np.where(totals > 0, totals, 1.0)


def setup(small=False):
    rng = np.random.default_rng(23)
    n = 40 if small else 500000
    return rng.standard_normal(n), rng.random(n), rng.integers(0, 10, n), 10
