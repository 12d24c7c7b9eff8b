"""LSD radix sort of non-negative int64 keys, byte by byte, with counting loops over arrays."""

import numpy as np


def radix_sort_ints(keys):
    a = keys.copy()
    buf = np.empty_like(a)
    n = a.shape[0]
    for shift in range(0, 32, 8):
        counts = np.zeros(257, dtype=np.int64)
        for i in range(n):
            counts[((a[i] >> shift) & 255) + 1] += 1
        for b in range(256):
            counts[b + 1] += counts[b]
        for i in range(n):
            d = (a[i] >> shift) & 255
            buf[counts[d]] = a[i]
            counts[d] += 1
        a, buf = buf, a
    return a


def setup(small=False):
    rng = np.random.default_rng(29)
    return (rng.integers(0, 2**31, 16 if small else 50_000),)
