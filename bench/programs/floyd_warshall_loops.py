"""All-pairs shortest paths by Floyd-Warshall, a triple loop over a NumPy matrix (Numba style)."""

import numpy as np


def floyd_warshall_loops(weights):
    n = weights.shape[0]
    dist = weights.copy()
    for k in range(n):
        for i in range(n):
            dik = dist[i, k]
            for j in range(n):
                if dik + dist[k, j] < dist[i, j]:
                    dist[i, j] = dik + dist[k, j]
    return dist


def setup(small=False):
    n = 6 if small else 60
    rng = np.random.default_rng(7)
    w = rng.uniform(1.0, 10.0, (n, n))
    w[rng.random((n, n)) < 0.6] = np.inf
    np.fill_diagonal(w, 0.0)
    return (w,)
