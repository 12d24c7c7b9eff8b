"""BLAS-1 DSWAP then DDOT on two short vectors: a tiny call that writes both its inputs."""

import numpy as np


def dswap_small(x, y):
    tmp = x.copy()
    x[:] = y
    y[:] = tmp
    return np.dot(x, y)


def setup(small=False):
    rng = np.random.default_rng(315)
    return rng.standard_normal(16), rng.standard_normal(16)
