"""Dijkstra's shortest paths on a dense weight matrix, O(n^2) with a visited mask (arrays)."""

import numpy as np


def dijkstra_dense(weights, source):
    n = weights.shape[0]
    dist = np.full(n, np.inf)
    visited = np.zeros(n, dtype=np.bool_)
    dist[source] = 0.0
    for _ in range(n):
        u = -1
        best = np.inf
        for v in range(n):
            if not visited[v] and dist[v] < best:
                best = dist[v]
                u = v
        if u < 0:
            break
        visited[u] = True
        for v in range(n):
            w = weights[u, v]
            if w > 0 and dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
    return dist


def setup(small=False):
    rng = np.random.default_rng(31)
    n = 8 if small else 500
    w = rng.random((n, n))
    w[w < 0.7] = 0.0
    return w, 0
