"""A sum whose terms depend on a branch per element, the loop written for @njit."""

import numpy as np


def branchy_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        if v > 0.5:
            s += v * v
        else:
            s -= v
    return s


def setup(small=False):
    rng = np.random.default_rng(139)
    return (rng.random(10 if small else 262144),)
