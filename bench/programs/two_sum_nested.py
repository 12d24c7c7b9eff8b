"""First pair of indices whose values sum to a target: `return` inside two nested loops."""

import numpy as np


def two_sum_nested(values, target):
    n = values.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if values[i] + values[j] == target:
                return i, j
    return -1, -1


def setup(small=False):
    rng = np.random.default_rng(79)
    n = 12 if small else 600
    values = rng.integers(0, 10 * n, n)
    return values, int(values[n - 3] + values[n - 1])
