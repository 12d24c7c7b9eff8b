"""Row-wise Euclidean norms by np.sqrt(np.sum(np.abs(x) ** 2, 1)) (numpy-benchmarks l2norm)."""

import numpy as np


def l2norm(x):
    return np.sqrt(np.sum(np.abs(x) ** 2, 1))


def setup(small=False):
    rng = np.random.default_rng(217)
    return (rng.random((5 if small else 1000, 1000 if not small else 4)),)
