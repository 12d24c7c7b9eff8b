"""Histogram over given bin edges, one np.searchsorted per sample in a loop (Numba style)."""

import numpy as np


def histogram_edges_loop(samples, edges):
    counts = np.zeros(len(edges) - 1, dtype=np.int64)
    for v in samples:
        j = np.searchsorted(edges, v, side="right") - 1
        if 0 <= j < len(counts):
            counts[j] += 1
    return counts


def setup(small=False):
    rng = np.random.default_rng(218)
    edges = np.concatenate(([-3.0], np.linspace(-2.0, 2.0, 7 if small else 41), [3.0]))
    return rng.standard_normal(30 if small else 20000), edges
