"""Rolling median of each channel of a multichannel signal: np.median(axis=0) of a moving window."""

import numpy as np


def rolling_median_channels(x, k):
    out = np.empty((x.shape[0] - k + 1, x.shape[1]))
    for i in range(out.shape[0]):
        out[i] = np.median(x[i : i + k], axis=0)
    return out


def setup(small=False):
    rng = np.random.default_rng(27)
    n = 40 if small else 5_000
    t = np.linspace(0.0, 20.0, n)[:, None]
    x = np.sin(t * np.array([1.0, 1.5, 2.0, 3.0])) + 0.2 * rng.standard_normal((n, 4))
    x[rng.random(x.shape) < 0.02] = 5.0  # spikes the median removes
    return x, 4 if small else 9
