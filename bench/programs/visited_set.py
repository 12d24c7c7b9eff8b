"""Lattice walk that records visited cells in a set and counts first visits over time."""

import numpy as np


def visited_set(moves, start):
    x, y = start
    seen = set()
    seen.add((x, y))
    new_sites = np.zeros(moves.shape[0], dtype=np.int64)
    for t in range(moves.shape[0]):
        x += moves[t, 0]
        y += moves[t, 1]
        if (x, y) not in seen:
            seen.add((x, y))
            new_sites[t] = 1
    return len(seen), np.cumsum(new_sites)


def setup(small=False):
    rng = np.random.default_rng(45)
    steps = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]])
    moves = steps[rng.integers(0, 4, 20 if small else 5000)]
    return moves, (0, 0)
