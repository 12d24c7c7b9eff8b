"""A 3x3 stencil convolution written as a weighted sum of nine shifted slices."""

import numpy as np


def special_convolve(a):
    return (
        a[:-2, :-2] - a[:-2, 2:] + 2 * a[1:-1, :-2] - 2 * a[1:-1, 2:] + a[2:, :-2] - a[2:, 2:]
    ) ** 2 + (
        a[:-2, :-2] + 2 * a[:-2, 1:-1] + a[:-2, 2:] - a[2:, :-2] - 2 * a[2:, 1:-1] - a[2:, 2:]
    ) ** 2


def setup(small=False):
    rng = np.random.default_rng(121)
    n = 6 if small else 1000
    return (rng.random((n, n)),)
