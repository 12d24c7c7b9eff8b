"""BLAS-1 nrm2 with scaling against overflow, on a 32-element vector."""

import numpy as np


def nrm2_small(x):
    scale = np.max(np.abs(x))
    if scale == 0.0:
        return 0.0
    return scale * np.sqrt(np.sum((x / scale) ** 2))


def setup(small=False):
    rng = np.random.default_rng(37)
    return (rng.standard_normal(32) * 1e150,)
