"""Flattened (i, i*i) pairs built with list.extend in a loop over a range."""


def list_extend_pairs(n):
    out = []
    for i in range(n):
        out.extend([i, i * i])
    return out


def setup(small=False):
    return (8 if small else 3000,)
