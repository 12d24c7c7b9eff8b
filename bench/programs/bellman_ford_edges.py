"""Bellman-Ford relaxation over edge arrays until no distance changes (early exit)."""

import numpy as np


def bellman_ford_edges(src, dst, weight, n, source):
    dist = np.full(n, 1e300)
    dist[source] = 0.0
    for _ in range(n - 1):
        changed = False
        for e in range(src.shape[0]):
            u = src[e]
            v = dst[e]
            if dist[u] + weight[e] < dist[v]:
                dist[v] = dist[u] + weight[e]
                changed = True
        if not changed:
            break
    return dist


def setup(small=False):
    rng = np.random.default_rng(37)
    n, m = (6, 15) if small else (2000, 20000)
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    return src, dst, rng.random(m) * 10.0, n, 0
