"""Largest value below a threshold, max() over a generator with an `if` clause, per query."""

import numpy as np


def max_gen_below(values, queries):
    out = []
    for q in queries:
        out.append(max((v for v in values if v < q), default=-1.0))
    return out


def setup(small=False):
    rng = np.random.default_rng(77)
    values = [float(v) for v in rng.random(15 if small else 600)]
    return values, [0.1, 0.5, 0.9] if small else [i / 20 for i in range(20)]
