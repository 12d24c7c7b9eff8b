"""Romberg integration: a triangular table as a list of lists, the integrand a Python function."""

import math


def integrand(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


def romberg(a, b, levels):
    table = [[0.5 * (b - a) * (integrand(a) + integrand(b))]]
    for k in range(1, levels):
        h = (b - a) / 2**k
        mid = sum(integrand(a + (2 * i - 1) * h) for i in range(1, 2 ** (k - 1) + 1))
        row = [0.5 * table[k - 1][0] + h * mid]
        for j in range(1, k + 1):
            row.append(row[j - 1] + (row[j - 1] - table[k - 1][j - 1]) / (4**j - 1))
        table.append(row)
    return table[-1][-1]


def romberg_lists(bounds, levels):
    return [romberg(a, b, levels) for a, b in bounds]


def setup(small=False):
    count = 3 if small else 60
    return [(0.0, 0.5 + 0.05 * i) for i in range(count)], 5 if small else 11
