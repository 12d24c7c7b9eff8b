"""Direct 2-D convolution ('valid'): Python loops over the kernel taps, slices for the image."""

import numpy as np


def conv2d_loops(img, kernel):
    kh, kw = kernel.shape
    h = img.shape[0] - kh + 1
    w = img.shape[1] - kw + 1
    out = np.zeros((h, w), dtype=img.dtype)
    for i in range(kh):
        for j in range(kw):
            out += kernel[kh - 1 - i, kw - 1 - j] * img[i : i + h, j : j + w]
    return out


def setup(small=False):
    rng = np.random.default_rng(14)
    n = 16 if small else 600
    return rng.random((n, n)).astype(np.float32), rng.random((5, 5)).astype(np.float32)
