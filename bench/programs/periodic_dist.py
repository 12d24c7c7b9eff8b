"""Distances between particles in a periodic box, the minimum image taken with np.where."""

import numpy as np


def periodic_dist(x, y, z, L, periodic_x, periodic_y, periodic_z):
    N = x.shape[0]
    dx = x[:, None] - x[None, :]
    dy = y[:, None] - y[None, :]
    dz = z[:, None] - z[None, :]
    if periodic_x:
        dx = np.where(dx > L / 2, dx - L, np.where(dx < -L / 2, dx + L, dx))
    if periodic_y:
        dy = np.where(dy > L / 2, dy - L, np.where(dy < -L / 2, dy + L, dy))
    if periodic_z:
        dz = np.where(dz > L / 2, dz - L, np.where(dz < -L / 2, dz + L, dz))
    d = np.sqrt(dx**2 + dy**2 + dz**2)
    d[np.arange(N), np.arange(N)] = -1
    return d


def setup(small=False):
    rng = np.random.default_rng(112)
    n = 6 if small else 600
    L = 10.0
    return rng.random(n) * L, rng.random(n) * L, rng.random(n) * L, L, True, True, False
