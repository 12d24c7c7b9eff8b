"""Shortest start of a window whose sum reaches a target, brute force over int64 prefix sums."""

import numpy as np


def subarray_target(x, target):
    n = x.shape[0]
    prefix = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        prefix[i + 1] = prefix[i] + x[i]
    for width in range(1, n + 1):
        for start in range(n - width + 1):
            if prefix[start + width] - prefix[start] >= target:
                return start, width
    return -1, 0


def setup(small=False):
    rng = np.random.default_rng(93)
    n = 12 if small else 400
    x = rng.integers(-50, 60, n)
    return x, int(np.abs(x).sum() // 6)
