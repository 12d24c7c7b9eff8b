"""Roots of Kepler's equation E - e sin E = M by the secant method on Python floats, per orbit."""

import math


def secant(m, e, tol):
    x0, x1 = m, m + 0.1
    f0 = x0 - e * math.sin(x0) - m
    for _ in range(100):
        f1 = x1 - e * math.sin(x1) - m
        if f1 == f0:
            break
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        x0, f0, x1 = x1, f1, x2
        if abs(x1 - x0) < tol:
            break
    return x1


def secant_roots(means, ecc):
    return [secant(m, ecc, 1e-13) for m in means]


def setup(small=False):
    count = 8 if small else 20000
    return [2 * math.pi * k / count for k in range(count)], 0.3
