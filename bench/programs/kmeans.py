"""Lloyd's k-means: assign by argmin of squared distances, recompute each centroid by mask."""

import numpy as np


def kmeans(points, centroids, iterations):
    centroids = centroids.copy()
    k = centroids.shape[0]
    for _ in range(iterations):
        d2 = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
        assign = np.argmin(d2, axis=1)
        for c in range(k):
            members = points[assign == c]
            if members.shape[0] > 0:
                centroids[c] = members.mean(axis=0)
    return centroids, assign


def setup(small=False):
    rng = np.random.default_rng(42)
    n, k = (30, 3) if small else (20000, 8)
    points = rng.standard_normal((n, 2)) + rng.integers(0, 4, (n, 1)) * 3.0
    return points, points[:k].copy(), 10
