"""Largest-triangle-three-buckets downsampling of a time series, one bucket per loop step."""

import numpy as np


def triangle_areas(a, points, c):
    return 0.5 * np.abs(
        (a[0] - c[0]) * (points[:, 1] - a[1]) - (a[0] - points[:, 0]) * (c[1] - a[1])
    )


def lttb_downsample(data, n_out):
    buckets = np.array_split(data[1:-1], n_out - 2)
    out = np.zeros((n_out, 2))
    out[0] = data[0]
    out[-1] = data[-1]
    for i in range(len(buckets)):
        nxt = buckets[i + 1].mean(axis=0) if i < len(buckets) - 1 else data[-1]
        areas = triangle_areas(out[i], buckets[i], nxt)
        out[i + 1] = buckets[i][np.argmax(areas)]
    return out


def setup(small=False):
    rng = np.random.default_rng(306)
    n = 40 if small else 20000
    t = np.arange(n, dtype=np.float64)
    return np.column_stack([t, np.cumsum(rng.standard_normal(n))]), 8 if small else 500
