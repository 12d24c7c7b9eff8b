"""Nearest constellation symbol of each received complex sample: argmin of squared distances."""

import numpy as np


def make_decision(received, symbols):
    out = np.zeros(received.shape[0], dtype=received.dtype)
    for i in range(received.shape[0]):
        best = np.argmin(np.abs(received[i] - symbols) ** 2)
        out[i] = symbols[best]
    return out


def setup(small=False):
    rng = np.random.default_rng(302)
    n = 16 if small else 4096
    received = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    symbols = rng.standard_normal(16) + 1j * rng.standard_normal(16)
    return received, symbols
