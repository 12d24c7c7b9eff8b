"""Euclidean projection of each row onto the probability simplex (sort, cumsum, argmax)."""

import numpy as np


def projection_simplex(v, z=1.0):
    n_features = v.shape[1]
    u = np.sort(v, axis=1)[:, ::-1]
    cssv = np.cumsum(u, axis=1) - z
    ind = np.arange(n_features) + 1
    cond = u - cssv / ind > 0
    rho = n_features - np.argmax(cond[:, ::-1], axis=1)
    theta = cssv[np.arange(v.shape[0]), rho - 1] / rho
    return np.maximum(v - theta[:, None], 0)


def setup(small=False):
    rng = np.random.default_rng(5)
    shape = (4, 6) if small else (4000, 64)
    return (rng.standard_normal(shape),)
