"""Many independent random walkers; mean squared displacement recorded at every step."""

import numpy as np


def random_walk(steps):
    walkers = steps.shape[1]
    pos = np.zeros(walkers)
    msd = np.empty(steps.shape[0])
    for t in range(steps.shape[0]):
        pos += steps[t]
        msd[t] = np.mean(pos**2)
    return pos, msd


def setup(small=False):
    rng = np.random.default_rng(6)
    t, w = (20, 10) if small else (2000, 500)
    return (np.where(rng.random((t, w)) < 0.5, -1.0, 1.0),)
