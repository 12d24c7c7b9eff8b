"""Kronecker product of two matrices by four nested loops (a textbook translation)."""

import numpy as np


def kronecker_loops(a, b):
    ra, ca = a.shape
    rb, cb = b.shape
    out = np.empty((ra * rb, ca * cb))
    for i in range(ra):
        for j in range(ca):
            for k in range(rb):
                for m in range(cb):
                    out[i * rb + k, j * cb + m] = a[i, j] * b[k, m]
    return out


def setup(small=False):
    rng = np.random.default_rng(67)
    if small:
        return rng.random((2, 3)), rng.random((3, 2))
    return rng.random((30, 30)), rng.random((20, 20))
