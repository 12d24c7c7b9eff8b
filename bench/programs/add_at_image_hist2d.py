"""2-D histogram of (x, y) samples by np.add.at on a flattened grid, then normalised."""

import numpy as np


def add_at_image_hist2d(x, y, bins):
    ix = np.clip((x * bins).astype(np.int64), 0, bins - 1)
    iy = np.clip((y * bins).astype(np.int64), 0, bins - 1)
    hist = np.zeros(bins * bins)
    np.add.at(hist, ix * bins + iy, 1.0)
    return hist.reshape(bins, bins) / x.shape[0]


def setup(small=False):
    rng = np.random.default_rng(86)
    n = 30 if small else 30000
    return rng.random(n), rng.random(n) ** 2, 4 if small else 32
