"""Discrete curvature of a sampled signal with np.diff(n=2), and where it changes sign."""

import numpy as np


def second_difference(y, h):
    curvature = np.diff(y, n=2) / (h * h)
    rows = np.diff(y.reshape(-1, 50), n=2, axis=0)
    return curvature, np.abs(rows).max(), int((curvature[1:] * curvature[:-1] < 0).sum())


def setup(small=False):
    rng = np.random.default_rng(217)
    t = np.linspace(0.0, 6.0, 200 if small else 20000)
    return np.sin(t) + 0.01 * rng.standard_normal(t.size), float(t[1] - t[0])
