"""2-D Ising model, Metropolis single-spin flips with a data-dependent accept test."""

import math

import numpy as np


def ising(spins, beta, sites, draws):
    n = spins.shape[0]
    energy_changes = 0.0
    for k in range(sites.shape[0]):
        i = sites[k, 0]
        j = sites[k, 1]
        nb = (
            spins[(i + 1) % n, j]
            + spins[(i - 1) % n, j]
            + spins[i, (j + 1) % n]
            + spins[i, (j - 1) % n]
        )
        dE = 2.0 * spins[i, j] * nb
        if dE <= 0.0 or draws[k] < math.exp(-beta * dE):
            spins[i, j] = -spins[i, j]
            energy_changes += dE
    return spins.sum(), energy_changes


def setup(small=False):
    rng = np.random.default_rng(7)
    n, flips = (6, 50) if small else (32, 20000)
    spins = np.where(rng.random((n, n)) < 0.5, -1, 1)
    return spins, 0.4, rng.integers(0, n, size=(flips, 2)), rng.random(flips)
