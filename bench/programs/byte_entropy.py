"""Shannon entropy of sliding blocks of a byte array: bincount per block, then p log2 p."""

import numpy as np


def byte_entropy(data, block):
    n_blocks = data.shape[0] // block
    out = np.empty(n_blocks)
    for b in range(n_blocks):
        counts = np.bincount(data[b * block : (b + 1) * block], minlength=256)
        p = counts[counts > 0] / block
        out[b] = -(p * np.log2(p)).sum()
    return out


def setup(small=False):
    rng = np.random.default_rng(71)
    n = 64 if small else 1_000_000
    data = (rng.integers(0, 40, n) * rng.integers(1, 7, n) % 256).astype(np.uint8)
    return data, 16 if small else 512
