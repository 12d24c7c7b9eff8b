"""BLAS-1 dot product of two 100-element vectors written as a sum of products."""

import numpy as np


def dot_small(x, y):
    return np.sum(x * y)


def setup(small=False):
    rng = np.random.default_rng(36)
    return rng.standard_normal(100), rng.standard_normal(100)
