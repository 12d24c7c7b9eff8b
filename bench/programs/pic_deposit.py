"""Particle-in-cell charge deposit: cloud-in-cell weights scattered with np.add.at, then a field."""

import numpy as np


def pic_deposit(x, q, cells, length):
    dx = length / cells
    s = x / dx
    left = np.floor(s).astype(np.int64)
    frac = s - left
    rho = np.zeros(cells)
    np.add.at(rho, left % cells, q * (1 - frac))
    np.add.at(rho, (left + 1) % cells, q * frac)
    rho = rho / dx - q.sum() / length
    field = np.cumsum(rho) * dx
    return rho, field - field.mean()


def setup(small=False):
    rng = np.random.default_rng(74)
    n = 20 if small else 100000
    return rng.uniform(0, 10.0, n), rng.choice([-1.0, 1.0], n), 8 if small else 256, 10.0
