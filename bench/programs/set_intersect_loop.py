"""Per-row count of neighbours shared with a reference set, a set built per row in a loop."""

import numpy as np


def set_intersect_loop(neighbours, reference):
    ref = set(reference.tolist())
    shared = []
    for i in range(neighbours.shape[0]):
        row = set()
        for j in range(neighbours.shape[1]):
            row.add(int(neighbours[i, j]))
        shared.append(len(row & ref))
    return np.array(shared)


def setup(small=False):
    rng = np.random.default_rng(90)
    return rng.integers(0, 50, (5 if small else 1000, 10)), rng.integers(0, 50, 15)
