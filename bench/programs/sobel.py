"""Sobel edge detector: gradient magnitude and direction, then a threshold mask."""

import numpy as np


def sobel(img, threshold):
    p = img
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    mag = np.hypot(gx, gy)
    angle = np.arctan2(gy, gx)
    edges = mag > threshold * mag.max()
    return mag, angle, edges


def setup(small=False):
    rng = np.random.default_rng(10)
    n = 16 if small else 1024
    img = np.cumsum(rng.random((n, n)), axis=1)
    return img, 0.2
