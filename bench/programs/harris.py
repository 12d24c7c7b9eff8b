"""Harris corner response of an image from slice gradients."""

import numpy as np


def harris(I):
    m, n = I.shape
    dx = (I[1:, :] - I[: m - 1, :])[:, 1:]
    dy = (I[:, 1:] - I[:, : n - 1])[1:, :]
    A = dx * dx
    B = dy * dy
    C = dx * dy
    tr = A + B
    det = A * B - C * C
    k = 0.05
    return det - k * tr * tr


def setup(small=False):
    rng = np.random.default_rng(116)
    n = 6 if small else 1000
    return (rng.random((n, n)),)
