"""Resample irregular samples onto a grid with np.interp, bin counts by np.searchsorted."""

import numpy as np


def interp_resample(t, v, grid):
    resampled = np.interp(grid, t, v)
    idx = np.searchsorted(grid, t, side="right") - 1
    counts = np.bincount(np.clip(idx, 0, len(grid) - 1), minlength=len(grid))
    return resampled, counts, resampled[counts > 0].mean()


def setup(small=False):
    rng = np.random.default_rng(73)
    n = 10 if small else 20000
    t = np.sort(rng.uniform(0, 100, n))
    return t, np.sin(t / 5) + 0.1 * rng.normal(size=n), np.linspace(0, 100, 8 if small else 2000)
