"""Filter-bank correlation of a batch of images with explicit nested loops (a convnet layer)."""

import numpy as np


def fbcorr_loops(imgs, filters):
    n_imgs, n_rows, n_cols, n_channels = imgs.shape
    n_filters, height, width = filters.shape[:3]
    out = np.zeros((n_imgs, n_filters, n_rows - height + 1, n_cols - width + 1))
    for ii in range(n_imgs):
        for rr in range(n_rows - height + 1):
            for cc in range(n_cols - width + 1):
                for hh in range(height):
                    for ww in range(width):
                        for jj in range(n_channels):
                            for ff in range(n_filters):
                                imgval = imgs[ii, rr + hh, cc + ww, jj]
                                filterval = filters[ff, hh, ww, jj]
                                out[ii, ff, rr, cc] += imgval * filterval
    return out


def setup(small=False):
    rng = np.random.default_rng(3)
    if small:
        return rng.random((1, 5, 5, 2)), rng.random((2, 3, 3, 2))
    return rng.random((2, 32, 32, 3)), rng.random((4, 5, 5, 3))
