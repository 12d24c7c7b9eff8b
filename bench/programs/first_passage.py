"""First passage of a random walk over a level: a while True loop left by its return."""

import numpy as np


def first_passage(steps, level):
    i = 0
    pos = 0.0
    while True:
        pos += steps[i]
        if pos > level:
            return i, pos
        i += 1


def setup(small=False):
    rng = np.random.default_rng(41)
    n = 60 if small else 400000
    steps = rng.standard_normal(n) + 0.01
    level = 0.9 * np.max(np.cumsum(steps))
    return steps, float(level)
