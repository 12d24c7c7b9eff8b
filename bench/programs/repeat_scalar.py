"""Upsample a signal by repeating each sample a scalar number of times, then smooth it."""

import numpy as np


def repeat_scalar(x, k):
    y = np.repeat(x, k)
    return y * 0.5 + 0.25


def setup(small=False):
    rng = np.random.default_rng(115)
    return rng.random(8 if small else 200_000), 4
