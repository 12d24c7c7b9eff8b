"""Cumulative sums from the end of an array, with reversed views."""

import numpy as np


def reverse_cumsum(x):
    return np.cumsum(x[::-1])[::-1]


def setup(small=False):
    rng = np.random.default_rng(113)
    return (rng.random(10 if small else 1_000_000),)
