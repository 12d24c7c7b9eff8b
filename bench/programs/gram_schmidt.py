"""QR factorisation by modified Gram-Schmidt, column by column."""

import numpy as np


def gram_schmidt(A):
    n = A.shape[1]
    Q = A.astype(np.float64).copy()
    R = np.zeros((n, n))
    for j in range(n):
        R[j, j] = np.sqrt(np.sum(Q[:, j] ** 2))
        Q[:, j] /= R[j, j]
        for k in range(j + 1, n):
            R[j, k] = np.sum(Q[:, j] * Q[:, k])
            Q[:, k] -= R[j, k] * Q[:, j]
    return Q, R


def setup(small=False):
    rng = np.random.default_rng(34)
    return (rng.standard_normal((10, 4) if small else (400, 60)),)
