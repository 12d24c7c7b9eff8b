"""Cronbach's alpha of a survey matrix (items in columns) from variances."""

import numpy as np


def cronbach(items):
    items = np.asarray(items)
    k = items.shape[1]
    item_vars = items.var(axis=0, ddof=1)
    total_var = items.sum(axis=1).var(ddof=1)
    return k / (k - 1) * (1 - item_vars.sum() / total_var)


def setup(small=False):
    rng = np.random.default_rng(110)
    base = rng.random((8 if small else 20000, 1))
    return (base + 0.5 * rng.random((8 if small else 20000, 12)),)
