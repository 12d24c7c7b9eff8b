"""Cross product and normalisation of 3-vectors written component by component (tiny arrays)."""

import math

import numpy as np


def cross3_small(a, b):
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    norm = math.sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2])
    if norm > 0.0:
        out /= norm
    return out


def setup(small=False):
    return np.array([1.0, 2.0, 3.0]), np.array([-0.5, 0.25, 4.0])
