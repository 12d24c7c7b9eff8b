"""Unsharp masking: image plus a scaled difference from a 3x3 blur, clipped to [0, 1]."""

import numpy as np


def unsharp_mask(img, amount):
    blur = img.copy()
    blur[1:-1, 1:-1] = (
        img[:-2, :-2]
        + img[:-2, 1:-1]
        + img[:-2, 2:]
        + img[1:-1, :-2]
        + img[1:-1, 1:-1]
        + img[1:-1, 2:]
        + img[2:, :-2]
        + img[2:, 1:-1]
        + img[2:, 2:]
    ) / 9.0
    return np.clip(img + amount * (img - blur), 0.0, 1.0)


def setup(small=False):
    rng = np.random.default_rng(15)
    n = 16 if small else 1024
    return rng.random((n, n)), 1.5
