"""BLAS-1 axpy on a short vector: y <- a*x + y, in place, and the updated vector returned."""

import numpy as np


def axpy_small(a, x, y):
    y += a * x
    return y


def setup(small=False):
    rng = np.random.default_rng(35)
    return 1.5, rng.standard_normal(8), rng.standard_normal(8)
