"""Zig-zag ordering of an n x n matrix (JPEG scan) by index arithmetic into a NumPy array."""

import numpy as np


def zigzag_matrix(n):
    out = np.zeros((n, n), dtype=np.int64)
    i = j = 0
    for k in range(n * n):
        out[i, j] = k
        if (i + j) % 2 == 0:
            if j == n - 1:
                i += 1
            elif i == 0:
                j += 1
            else:
                i -= 1
                j += 1
        else:
            if i == n - 1:
                j += 1
            elif j == 0:
                i += 1
            else:
                i += 1
                j -= 1
    return out


def setup(small=False):
    return (5 if small else 600,)
