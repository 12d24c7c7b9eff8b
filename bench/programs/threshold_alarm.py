"""First sample of a signal outside a band, and on which side: a search loop with two returns."""

import numpy as np


def threshold_alarm(signal, low, high):
    for i in range(signal.shape[0]):
        v = signal[i]
        if v > high:
            return i, 1
        if v < low:
            return i, -1
    return -1, 0


def setup(small=False):
    rng = np.random.default_rng(53)
    n = 50 if small else 300000
    signal = np.sin(np.linspace(0.0, 40.0, n)) + 0.05 * rng.standard_normal(n)
    signal[n - 7] = -2.0
    return signal, -1.5, 1.5
