"""Sum of squares of the positive entries of each row, sum() over a generator with an `if`."""

import numpy as np


def gen_sum_if_array(data):
    out = np.empty(data.shape[0])
    for i in range(data.shape[0]):
        row = data[i]
        out[i] = sum(v * v for v in row if v > 0.0)
    return out


def setup(small=False):
    rng = np.random.default_rng(88)
    return (rng.standard_normal((4 if small else 200, 6 if small else 50)),)
