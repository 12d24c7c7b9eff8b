"""Squared Euclidean distances between two point sets by the dot-product expansion."""

import numpy as np


def euclid_dist_square(x1, x2):
    return (
        -2 * np.dot(x1, x2.T)
        + np.sum(np.square(x1), axis=1)[:, None]
        + np.sum(np.square(x2), axis=1)
    )


def setup(small=False):
    rng = np.random.default_rng(22)
    n = 5 if small else 400
    return rng.normal(size=(n, 3)), rng.normal(size=(n + 30, 3))
