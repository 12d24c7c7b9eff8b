"""Dynamic time warping distance of two series: a cost table from np.full(inf), min of three."""

import numpy as np


def dtw_distance(s, t):
    n, m = len(s), len(t)
    cost = np.full((n + 1, m + 1), np.inf)
    cost[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d = abs(s[i - 1] - t[j - 1])
            cost[i, j] = d + min(cost[i - 1, j], cost[i, j - 1], cost[i - 1, j - 1])
    return cost[n, m]


def setup(small=False):
    rng = np.random.default_rng(3)
    n = 6 if small else 200
    return np.cumsum(rng.normal(size=n)), np.cumsum(rng.normal(size=n + 17))
