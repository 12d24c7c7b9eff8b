"""BLAS-1 drot: a plane rotation applied to two length-8 vectors in place (tiny, many calls)."""

import math

import numpy as np


def drot_small(x, y, theta):
    c = math.cos(theta)
    s = math.sin(theta)
    tmp = c * x + s * y
    y[:] = c * y - s * x
    x[:] = tmp
    return np.sqrt(np.dot(x, x) + np.dot(y, y))


def setup(small=False):
    rng = np.random.default_rng(214)
    return rng.random(8), rng.random(8), 0.3
