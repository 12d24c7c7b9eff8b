"""Normalise a 3-vector by its length in Python floats, a geometry helper called per vertex."""

import math


def scal_norm_small(v):
    x, y, z = v
    n = math.sqrt(x * x + y * y + z * z)
    if n == 0.0:
        return (0.0, 0.0, 0.0)
    return (x / n, y / n, z / n)


def setup(small=False):
    return ((0.3, -1.2, 2.5),)
