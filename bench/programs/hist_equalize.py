"""Histogram equalisation of an 8-bit image: histogram, normalised CDF, lookup table."""

import numpy as np


def hist_equalize(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    nonzero = cdf[cdf > 0]
    cdf_min = nonzero[0]
    lut = np.round((cdf - cdf_min) / (cdf[-1] - cdf_min) * 255.0)
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    return lut[img]


def setup(small=False):
    rng = np.random.default_rng(12)
    n = 16 if small else 1024
    return (((rng.random((n, n)) ** 2) * 180).astype(np.uint8),)
