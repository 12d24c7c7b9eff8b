"""Linear detrending of each row by np.polyfit / np.polyval in a Python loop over rows."""

import numpy as np


def polyfit_detrend(series, degree):
    t = np.arange(series.shape[1], dtype=np.float64)
    out = np.empty_like(series)
    for k in range(series.shape[0]):
        coeffs = np.polyfit(t, series[k], degree)
        out[k] = series[k] - np.polyval(coeffs, t)
    return out


def setup(small=False):
    rng = np.random.default_rng(76)
    rows, cols = (3, 10) if small else (40, 200)
    trend = np.linspace(0, 5, cols)
    return trend + rng.standard_normal((rows, cols)), 1
