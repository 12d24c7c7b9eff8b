"""Separable Gaussian blur: a 1-D kernel built from the sigma, applied along rows then columns."""

import numpy as np


def gaussian_kernel(sigma, radius):
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    k = np.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


def gaussian_blur(img, sigma):
    radius = int(3 * sigma)
    k = gaussian_kernel(sigma, radius)
    padded = np.pad(img, radius, mode="edge")
    h, w = img.shape
    rows = np.zeros((h + 2 * radius, w))
    for i in range(2 * radius + 1):
        rows += k[i] * padded[:, i : i + w]
    out = np.zeros((h, w))
    for i in range(2 * radius + 1):
        out += k[i] * rows[i : i + h, :]
    return out


def setup(small=False):
    rng = np.random.default_rng(9)
    n = 20 if small else 512
    return rng.random((n, n)), 1.5
