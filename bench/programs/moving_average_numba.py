"""Moving average filling np.empty by a running sum loop (Numba's moving-average example)."""

import numpy as np


def moving_average_numba(a, window):
    n = a.shape[0]
    out = np.empty(n)
    asum = 0.0
    count = 0
    for i in range(window):
        asum += a[i]
        count += 1
        out[i] = asum / count
    for i in range(window, n):
        asum += a[i] - a[i - window]
        out[i] = asum / count
    return out


def setup(small=False):
    rng = np.random.default_rng(215)
    return rng.random(20 if small else 1_000_000), 3 if small else 50
