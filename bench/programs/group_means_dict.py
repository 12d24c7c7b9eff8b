"""Mean of values per label with a dict of running sums, labels given as strings."""

import numpy as np


def group_means_dict(labels, values):
    sums = {}
    counts = {}
    for label, v in zip(labels, values):
        sums[label] = sums.get(label, 0.0) + v
        counts[label] = counts.get(label, 0) + 1
    return {k: sums[k] / counts[k] for k in sorted(sums)}


def setup(small=False):
    rng = np.random.default_rng(126)
    n = 20 if small else 20000
    labels = [("a", "b", "c", "d")[i] for i in rng.integers(0, 4, n)]
    return labels, rng.random(n).tolist()
