"""Lanczos approximation of the gamma function, a small scalar function called per element."""

import math

import numpy as np

G = 7
COEFFS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61503916999185,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)


def gamma(z):
    if z < 0.5:
        return math.pi / (math.sin(math.pi * z) * gamma(1.0 - z))
    z -= 1.0
    x = COEFFS[0]
    for i in range(1, G + 2):
        x += COEFFS[i] / (z + i)
    t = z + G + 0.5
    return math.sqrt(2 * math.pi) * t ** (z + 0.5) * math.exp(-t) * x


def lanczos_gamma(zs):
    out = np.empty_like(zs)
    for i in range(zs.shape[0]):
        out[i] = gamma(zs[i])
    return out


def setup(small=False):
    return (np.linspace(0.1, 9.7, 10 if small else 100_000),)
