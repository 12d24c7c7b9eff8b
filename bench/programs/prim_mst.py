"""Prim's minimum spanning tree weight on points, key array updated by vectorised np.minimum."""

import numpy as np


def prim_mst(points):
    n = points.shape[0]
    in_tree = np.zeros(n, dtype=bool)
    key = np.full(n, np.inf)
    key[0] = 0.0
    total = 0.0
    for _ in range(n):
        candidates = np.where(in_tree, np.inf, key)
        u = int(np.argmin(candidates))
        in_tree[u] = True
        total += key[u]
        d = np.sqrt(((points - points[u]) ** 2).sum(axis=1))
        key = np.minimum(key, d)
    return total


def setup(small=False):
    rng = np.random.default_rng(41)
    return (rng.random((10 if small else 1500, 2)),)
