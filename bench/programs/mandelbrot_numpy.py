"""Vectorised escape-time Mandelbrot: a mask of live points, iteration counts by np.where."""

import numpy as np


def mandelbrot_numpy(c, max_iter):
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int32)
    for it in range(max_iter):
        live = np.abs(z) <= 2.0
        z = np.where(live, z * z + c, z)
        counts += live
    return counts


def setup(small=False):
    n = 16 if small else 400
    x = np.linspace(-2.0, 0.6, n)
    y = np.linspace(-1.2, 1.2, n)
    return x[None, :] + 1j * y[:, None], (10 if small else 40)
