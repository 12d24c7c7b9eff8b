"""Closest pair among points given as a list of tuples, with itertools.combinations."""

import itertools
import math


def itertools_pairs(points):
    best = math.inf
    pair = None
    for (i, p), (j, q) in itertools.combinations(enumerate(points), 2):
        d = math.hypot(p[0] - q[0], p[1] - q[1])
        if d < best:
            best, pair = d, (i, j)
    return best, pair


def setup(small=False):
    import random

    rng = random.Random(205)
    n = 8 if small else 300
    return ([(rng.random(), rng.random()) for _ in range(n)],)
