"""All-pairs Euclidean distances with loops over points into np.empty (numpy-benchmarks)."""

import numpy as np


def allpairs_loops(X, Y):
    result = np.zeros((X.shape[0], Y.shape[0]), X.dtype)
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            result[i, j] = np.sum((X[i, :] - Y[j, :]) ** 2)
    return result


def setup(small=False):
    rng = np.random.default_rng(219)
    n = 4 if small else 60
    return rng.random((n, 3)), rng.random((n, 3))
