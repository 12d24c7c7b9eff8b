"""Ray-casting point-in-polygon test for many points against one polygon (Numba classic)."""

import numpy as np


def point_in_polygon(xs, ys, poly):
    n = poly.shape[0]
    inside = np.zeros(xs.shape[0], dtype=np.bool_)
    for k in range(xs.shape[0]):
        x = xs[k]
        y = ys[k]
        c = False
        j = n - 1
        for i in range(n):
            xi, yi = poly[i, 0], poly[i, 1]
            xj, yj = poly[j, 0], poly[j, 1]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
                c = not c
            j = i
        inside[k] = c
    return inside


def setup(small=False):
    rng = np.random.default_rng(83)
    angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    radius = 1.0 + 0.3 * np.sin(5 * angles)
    poly = np.stack([radius * np.cos(angles), radius * np.sin(angles)], axis=1)
    n = 10 if small else 10_000
    return rng.uniform(-1.5, 1.5, n), rng.uniform(-1.5, 1.5, n), poly
