"""BLAS-1 iamax: the index of the largest magnitude in a short vector."""

import numpy as np


def iamax_small(x):
    return int(np.argmax(np.abs(x)))


def setup(small=False):
    rng = np.random.default_rng(123)
    return (rng.standard_normal(7),)
