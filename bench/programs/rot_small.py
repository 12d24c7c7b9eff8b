"""BLAS-1 rot: a plane rotation applied to two short vectors in place."""

import numpy as np


def rot_small(x, y, c, s):
    t = c * x + s * y
    y[:] = c * y - s * x
    x[:] = t


def setup(small=False):
    rng = np.random.default_rng(124)
    return rng.standard_normal(5), rng.standard_normal(5), 0.8, 0.6
