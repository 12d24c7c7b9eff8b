"""Determinant of a small matrix (lists of lists) by cofactor expansion, recursively."""


def det_recursive(m):
    n = len(m)
    if n == 1:
        return m[0][0]
    if n == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    total = 0.0
    for j in range(n):
        minor = [row[:j] + row[j + 1 :] for row in m[1:]]
        total += (-1) ** j * m[0][j] * det_recursive(minor)
    return total


def setup(small=False):
    import random

    rng = random.Random(129)
    n = 3 if small else 7
    return ([[rng.uniform(-1, 1) for _ in range(n)] for _ in range(n)],)
