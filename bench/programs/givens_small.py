"""BLAS-1 rot: apply a Givens rotation to two 16-element vectors in place."""

import numpy as np


def givens_small(x, y, c, s):
    tx = c * x + s * y
    y[:] = c * y - s * x
    x[:] = tx
    return x, y


def setup(small=False):
    rng = np.random.default_rng(38)
    theta = 0.3
    return rng.standard_normal(16), rng.standard_normal(16), np.cos(theta), np.sin(theta)
