"""Validate inputs (raise on bad values), then normalise rows to probability vectors."""

import numpy as np


def validate_normalise(counts, pseudo):
    if counts.ndim != 2:
        raise ValueError("counts must be a matrix")
    if np.any(counts < 0):
        raise ValueError("negative counts")
    smoothed = counts + pseudo
    totals = smoothed.sum(axis=1, keepdims=True)
    probs = smoothed / totals
    entropy = -(probs * np.log(probs)).sum(axis=1)
    return probs, entropy


def setup(small=False):
    rng = np.random.default_rng(44)
    return rng.poisson(3.0, (5, 4) if small else (2000, 500)).astype(np.float64), 0.5
