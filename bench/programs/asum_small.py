"""BLAS-1 asum of a short vector, called the way a solver calls it in its inner step."""

import numpy as np


def asum_small(x):
    return np.abs(x).sum()


def setup(small=False):
    rng = np.random.default_rng(122)
    return (rng.standard_normal(6),)
