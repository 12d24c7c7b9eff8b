"""Sparse matrix-vector product in CSR form by loops over indptr/indices/data (Numba style)."""

import numpy as np


def csr_matvec(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for row in range(n):
        acc = 0.0
        for k in range(indptr[row], indptr[row + 1]):
            acc += data[k] * x[indices[k]]
        y[row] = acc
    return y


def setup(small=False):
    rng = np.random.default_rng(5)
    n = 8 if small else 3000
    per_row = rng.integers(1, 4 if small else 12, n)
    indptr = np.concatenate(([0], np.cumsum(per_row)))
    indices = rng.integers(0, n, indptr[-1])
    data = rng.normal(size=indptr[-1])
    return indptr, indices, data, rng.normal(size=n)
