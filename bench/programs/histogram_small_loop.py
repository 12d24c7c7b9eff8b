"""Histogram of a small array with an explicit bin loop, as written before np.histogram."""

import numpy as np


def histogram_small_loop(x, nbins, lo, hi):
    counts = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    for v in x:
        b = int((v - lo) / width)
        if 0 <= b < nbins:
            counts[b] += 1
        elif v == hi:
            counts[nbins - 1] += 1
    return counts


def setup(small=False):
    rng = np.random.default_rng(131)
    return rng.random(20 if small else 500), 10, 0.0, 1.0
