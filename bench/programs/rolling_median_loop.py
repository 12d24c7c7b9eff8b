"""Rolling median of a noisy signal, np.median of each window in a loop (robust smoothing)."""

import numpy as np


def rolling_median_loop(x, k):
    out = np.empty(x.shape[0] - k + 1)
    for i in range(out.shape[0]):
        out[i] = np.median(x[i : i + k])
    return out


def setup(small=False):
    rng = np.random.default_rng(26)
    x = np.sin(np.linspace(0.0, 20.0, 40 if small else 20_000)) + 0.2 * rng.standard_normal(
        40 if small else 20_000
    )
    x[rng.random(x.shape[0]) < 0.02] = 5.0  # spikes the median removes
    return x, 4 if small else 9
