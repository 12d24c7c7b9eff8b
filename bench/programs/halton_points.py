"""Halton low-discrepancy points by radical inverse (int loops with // and %), into an array."""

import numpy as np


def radical_inverse(i, base):
    f = 1.0
    r = 0.0
    while i > 0:
        f /= base
        r += f * (i % base)
        i //= base
    return r


def halton_points(n, bases):
    out = np.empty((n, len(bases)))
    for i in range(n):
        for d in range(len(bases)):
            out[i, d] = radical_inverse(i + 1, bases[d])
    return out


def setup(small=False):
    return (10 if small else 50_000), (2, 3, 5)
