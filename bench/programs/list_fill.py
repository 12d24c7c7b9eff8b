"""Fill a preallocated Python list in a loop and hand it back (the GB012 pattern)."""


def list_fill(out, n):
    for i in range(n):
        out[i] = i * 2.0 + 1.0
    return out


def setup(small=False):
    n = 10 if small else 2000
    return [0.0] * n, n
