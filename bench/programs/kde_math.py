"""Gaussian kernel density estimate on a grid by a double loop with math.exp."""

import math

import numpy as np


def kde_math(samples, grid, bandwidth):
    out = np.zeros(grid.shape[0])
    norm = 1.0 / (samples.shape[0] * bandwidth * math.sqrt(2 * math.pi))
    for i in range(grid.shape[0]):
        s = 0.0
        for j in range(samples.shape[0]):
            u = (grid[i] - samples[j]) / bandwidth
            s += math.exp(-0.5 * u * u)
        out[i] = s * norm
    return out


def setup(small=False):
    rng = np.random.default_rng(216)
    return rng.normal(size=20 if small else 2000), np.linspace(-4, 4, 10 if small else 200), 0.3
