"""How many entries of an int array fall in a set of allowed values (membership test in a loop)."""

import numpy as np


def set_membership_count(values, allowed):
    wanted = set(allowed)
    hits = 0
    for i in range(values.shape[0]):
        if values[i] in wanted:
            hits += 1
    return hits


def setup(small=False):
    rng = np.random.default_rng(73)
    return rng.integers(0, 100, 20 if small else 5000), [3, 7, 11, 19, 42, 64, 97]
