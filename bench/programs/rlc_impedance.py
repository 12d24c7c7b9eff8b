"""Impedance of a series RLC circuit over a frequency sweep: magnitude and phase per point."""

import cmath
import math

import numpy as np


def rlc_impedance(freqs, R, L, C):
    n = freqs.shape[0]
    mag = np.empty(n)
    phase = np.empty(n)
    for i in range(n):
        w = 2 * math.pi * float(freqs[i])
        z = R + 1j * w * L + 1 / (1j * w * C)
        mag[i] = abs(z)
        phase[i] = cmath.phase(z)
    return mag, phase


def setup(small=False):
    return np.geomspace(10.0, 1e6, 12 if small else 100000), 50.0, 1e-3, 1e-6
