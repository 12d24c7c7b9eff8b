"""Polynomial trend by np.polyfit, evaluated by np.polyval, residual RMS per degree (a tiny loop)."""

import numpy as np


def polyfit_residuals(x, y, max_degree):
    rms = []
    for degree in range(1, max_degree + 1):
        coeffs = np.polyfit(x, y, degree)
        resid = y - np.polyval(coeffs, x)
        rms.append(float(np.sqrt(np.mean(resid**2))))
    return np.array(rms)


def setup(small=False):
    rng = np.random.default_rng(44)
    x = np.linspace(-1, 1, 12 if small else 300)
    return x, np.sin(3 * x) + 0.1 * rng.normal(size=x.shape), 3 if small else 6
