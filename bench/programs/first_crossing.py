"""The first step a random walk climbs past a level: ``found = None`` until a while loop sees it."""

import numpy as np


def first_crossing(walk, level):
    found = None
    i = 0
    while found is None and i < len(walk):
        if walk[i] > level:
            found = i
        i += 1
    return found


def setup(small=False):
    rng = np.random.default_rng(11)
    n = 60 if small else 200_000
    walk = np.cumsum(rng.standard_normal(n))
    level = float(walk[: n * 9 // 10].max())  # first passed, if ever, in the last tenth
    return walk, level
