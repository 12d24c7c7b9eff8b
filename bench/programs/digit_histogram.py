"""Digit frequencies and digital roots of many integers, peeled off with divmod in a while loop."""

import numpy as np


def digit_histogram(values):
    counts = np.zeros(10, dtype=np.int64)
    roots = np.empty(len(values), dtype=np.int64)
    for k in range(len(values)):
        v = int(values[k])
        total = 0
        while v > 0:
            v, d = divmod(v, 10)
            counts[d] += 1
            total += d
        roots[k] = 1 + (total - 1) % 9 if total else 0
    return counts, roots


def setup(small=False):
    rng = np.random.default_rng(81)
    return (rng.integers(0, 10**9, 12 if small else 20000),)
