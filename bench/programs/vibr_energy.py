"""Vibrational energy of a set of harmonic oscillators, summed over modes."""

import numpy as np


def vibr_energy(harmonic, anharmonic, i):
    return np.exp(-harmonic * i - anharmonic * (i**2)).sum()


def setup(small=False):
    rng = np.random.default_rng(118)
    n = 10 if small else 1_000_000
    return rng.random(n), rng.random(n) * 0.01, 3
