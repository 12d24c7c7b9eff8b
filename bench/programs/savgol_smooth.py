"""Savitzky-Golay smoothing (SciPy cookbook): least-squares window coefficients, then np.convolve."""

import numpy as np


def savgol_smooth(y, window, order):
    half = (window - 1) // 2
    b = np.array([[k**i for i in range(order + 1)] for k in range(-half, half + 1)], dtype=float)
    m = np.linalg.pinv(b)[0]
    first = y[0] - np.abs(y[1 : half + 1][::-1] - y[0])
    last = y[-1] + np.abs(y[-half - 1 : -1][::-1] - y[-1])
    padded = np.concatenate((first, y, last))
    return np.convolve(m[::-1], padded, mode="valid")


def setup(small=False):
    rng = np.random.default_rng(72)
    t = np.linspace(-4, 4, 30 if small else 5000)
    return np.exp(-(t**2)) + rng.normal(0, 0.05, t.shape), 11 if small else 31, 4
