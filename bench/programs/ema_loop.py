"""Exponential moving average and running maximum, one element at a time in a Python loop."""

import numpy as np


def ema_loop(x, alpha):
    out = np.empty_like(x)
    peak = np.empty_like(x)
    acc = x[0]
    top = x[0]
    for i in range(x.shape[0]):
        acc = alpha * x[i] + (1.0 - alpha) * acc
        if x[i] > top:
            top = x[i]
        out[i] = acc
        peak[i] = top
    return out, peak


def setup(small=False):
    rng = np.random.default_rng(17)
    return np.cumsum(rng.standard_normal(50 if small else 20000)), 0.05
