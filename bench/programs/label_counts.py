"""Per-label statistics accumulated in a dict, then turned into sorted arrays."""

import numpy as np


def label_counts(labels, values):
    sums = {}
    counts = {}
    for i in range(labels.shape[0]):
        key = int(labels[i])
        sums[key] = sums.get(key, 0.0) + values[i]
        counts[key] = counts.get(key, 0) + 1
    keys = np.array(sorted(sums))
    means = np.array([sums[k] / counts[k] for k in sorted(sums)])
    spread = means - means.mean()
    return keys, means, spread


def setup(small=False):
    rng = np.random.default_rng(46)
    n = 30 if small else 5000
    return rng.integers(0, 20, n), rng.standard_normal(n)
