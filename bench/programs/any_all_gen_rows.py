"""Rows whose entries are all finite and any of them above a level: all()/any() over generators."""

import numpy as np


def any_all_gen_rows(data, level):
    keep = []
    for i in range(data.shape[0]):
        if all(data[i, j] == data[i, j] for j in range(data.shape[1])) and any(
            data[i, j] > level for j in range(data.shape[1])
        ):
            keep.append(i)
    return keep


def setup(small=False):
    rng = np.random.default_rng(89)
    data = rng.random((5 if small else 400, 8))
    data[1, 3] = np.nan
    return data, 0.97
