"""Barnsley fern by the chaos game: affine maps chosen by precomputed uniforms, points stored."""

import numpy as np


def barnsley_fern(choices):
    n = choices.shape[0]
    xs = np.empty(n)
    ys = np.empty(n)
    x = 0.0
    y = 0.0
    for i in range(n):
        r = choices[i]
        if r < 0.01:
            x, y = 0.0, 0.16 * y
        elif r < 0.86:
            x, y = 0.85 * x + 0.04 * y, -0.04 * x + 0.85 * y + 1.6
        elif r < 0.93:
            x, y = 0.2 * x - 0.26 * y, 0.23 * x + 0.22 * y + 1.6
        else:
            x, y = -0.15 * x + 0.28 * y, 0.26 * x + 0.24 * y + 0.44
        xs[i] = x
        ys[i] = y
    return xs, ys


def setup(small=False):
    rng = np.random.default_rng(47)
    return (rng.random(20 if small else 500_000),)
