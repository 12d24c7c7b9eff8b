"""Merge two sorted arrays with the two-pointer while loop, then append the leftovers."""

import numpy as np


def merge_sorted(a, b):
    out = np.empty(a.shape[0] + b.shape[0], dtype=a.dtype)
    i = 0
    j = 0
    k = 0
    while i < a.shape[0] and j < b.shape[0]:
        if a[i] <= b[j]:
            out[k] = a[i]
            i += 1
        else:
            out[k] = b[j]
            j += 1
        k += 1
    out[k : k + a.shape[0] - i] = a[i:]
    k += a.shape[0] - i
    out[k:] = b[j:]
    return out


def setup(small=False):
    rng = np.random.default_rng(28)
    n = 10 if small else 20000
    return np.sort(rng.random(n)), np.sort(rng.random(n + 7))
