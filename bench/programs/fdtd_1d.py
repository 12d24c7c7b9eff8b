"""1-D FDTD: electric and magnetic fields leapfrogged with slices and a soft source."""

import math

import numpy as np


def fdtd_1d(n, steps):
    ex = np.zeros(n)
    hy = np.zeros(n)
    for t in range(steps):
        ex[1:] = ex[1:] + 0.5 * (hy[:-1] - hy[1:])
        ex[n // 2] += math.exp(-0.5 * ((40 - t) / 12.0) ** 2)
        hy[:-1] = hy[:-1] + 0.5 * (ex[:-1] - ex[1:])
    return ex, hy


def setup(small=False):
    return (20, 10) if small else (2000, 500)
