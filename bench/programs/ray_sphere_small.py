"""Ray-sphere hits with tiny NumPy 3-vectors: np.dot and np.linalg.norm called per ray."""

import numpy as np


def ray_sphere_small(origins, directions, centre, radius):
    hits = 0
    nearest = np.inf
    for k in range(origins.shape[0]):
        d = directions[k] / np.linalg.norm(directions[k])
        oc = origins[k] - centre
        b = np.dot(oc, d)
        disc = b * b - (np.dot(oc, oc) - radius * radius)
        if disc >= 0:
            t = -b - np.sqrt(disc)
            if t > 0:
                hits += 1
                nearest = min(nearest, t)
    return hits, nearest


def setup(small=False):
    rng = np.random.default_rng(61)
    n = 10 if small else 2000
    origins = rng.normal(size=(n, 3)) * 0.2
    directions = np.array([0.0, 0.0, -1.0]) + rng.normal(size=(n, 3)) * 0.3
    return origins, directions, np.array([0.0, 0.0, -4.0]), 1.0
