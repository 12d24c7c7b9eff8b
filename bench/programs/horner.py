"""Evaluate a polynomial at many points with Horner's rule over its coefficients."""

import numpy as np


def horner(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def setup(small=False):
    rng = np.random.default_rng(48)
    return rng.standard_normal(12), np.linspace(-1.0, 1.0, 50 if small else 1_000_000)
