"""Rows whose feature bits cover a mask, enumerate over a 2-D int table (numpy-benchmarks style)."""

import numpy as np


def check_mask_rows(db, mask):
    out = np.zeros(db.shape[0], dtype=bool)
    for idx, line in enumerate(db):
        target, vector = line[0], line[1:]
        if (mask == np.bitwise_and(mask, vector)).all():  # noqa: SIM102 - as the benchmark writes it
            if target == 1:
                out[idx] = True
    return out


def setup(small=False):
    rng = np.random.default_rng(21)
    rows = 12 if small else 2000
    db = rng.integers(0, 8, (rows, 4))
    db[:, 0] = rng.integers(0, 2, rows)
    return db, np.array([1, 3, 4])
