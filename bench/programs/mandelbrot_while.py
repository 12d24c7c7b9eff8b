"""Escape-time Mandelbrot set: a Python while loop per pixel on complex scalars."""

import numpy as np


def mandelbrot_while(xs, ys, max_iter):
    counts = np.zeros((ys.shape[0], xs.shape[0]), dtype=np.int64)
    for i in range(ys.shape[0]):
        for j in range(xs.shape[0]):
            c = complex(xs[j], ys[i])
            z = 0j
            n = 0
            while abs(z) <= 2.0 and n < max_iter:
                z = z * z + c
                n += 1
            counts[i, j] = n
    return counts


def setup(small=False):
    n = 8 if small else 80
    return np.linspace(-2.0, 0.6, n), np.linspace(-1.2, 1.2, n), (20 if small else 60)
