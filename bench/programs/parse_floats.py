"""Parse comma-separated numbers from lines of text and sum each column with NumPy."""

import numpy as np


def parse_floats(lines):
    rows = []
    for line in lines:
        if not line or line.startswith("#"):
            continue
        rows.append([float(field) for field in line.split(",")])
    data = np.array(rows)
    return data.sum(axis=0), data.shape[0]


def setup(small=False):
    rng = np.random.default_rng(127)
    n = 10 if small else 5000
    lines = ["# x,y,z"] + [",".join(f"{v:.6f}" for v in rng.random(3)) for _ in range(n)]
    return (lines,)
