"""Fixed-width histogram filled one value at a time in a Python loop (values outside dropped)."""

import numpy as np


def histogram_loop(values, lo, hi, bins):
    counts = np.zeros(bins, dtype=np.int64)
    width = (hi - lo) / bins
    for v in values:
        if lo <= v < hi:
            k = int((v - lo) / width)
            counts[k] += 1
    return counts


def setup(small=False):
    rng = np.random.default_rng(21)
    return rng.normal(0.0, 1.0, 50 if small else 10000), -3.0, 3.0, 30
