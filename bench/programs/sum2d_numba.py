"""Sum of a 2-D array by a double loop over shape, the first example of Numba's docs."""

import numpy as np


def sum2d_numba(arr):
    M, N = arr.shape
    result = 0.0
    for i in range(M):
        for j in range(N):
            result += arr[i, j]
    return result


def setup(small=False):
    n = 5 if small else 300
    return (np.arange(n * n, dtype=np.float64).reshape(n, n) / n,)
