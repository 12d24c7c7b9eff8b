"""Buffon's needle estimate of pi from seeded random drops, vectorised with a boolean count."""

import numpy as np


def buffon_needle(x, theta, length, spacing):
    reach = 0.5 * length * np.sin(theta)
    hits = np.count_nonzero(x <= reach)
    if hits == 0:
        return float("inf")
    return 2.0 * length * x.size / (spacing * hits)


def setup(small=False):
    rng = np.random.default_rng(17)
    n = 20 if small else 1_000_000
    x = rng.random(n) * 0.5
    theta = rng.random(n) * np.pi / 2
    return x, theta, 0.8, 1.0
