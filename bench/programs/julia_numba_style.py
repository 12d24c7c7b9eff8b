"""Julia set written for @njit: element loops over a preallocated array, complex arithmetic."""

import numpy as np


def julia_numba_style(xs, ys, c, max_iter):
    out = np.empty((ys.shape[0], xs.shape[0]), dtype=np.int64)
    for i in range(ys.shape[0]):
        for j in range(xs.shape[0]):
            z = complex(xs[j], ys[i])
            k = 0
            while k < max_iter and (z.real * z.real + z.imag * z.imag) < 4.0:
                z = z * z + c
                k += 1
            out[i, j] = k
    return out


def setup(small=False):
    n = 6 if small else 150
    return np.linspace(-1.5, 1.5, n), np.linspace(-1.0, 1.0, n), complex(-0.8, 0.156), 50
