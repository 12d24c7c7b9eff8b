"""All pairwise distances of a list of (x, y) tuples, appended to a flat list (condensed form)."""

import math


def pair_distances_tuples(points):
    out = []
    n = len(points)
    for i in range(n):
        xi, yi = points[i]
        for j in range(i + 1, n):
            xj, yj = points[j]
            out.append(math.sqrt((xi - xj) ** 2 + (yi - yj) ** 2))
    return out


def setup(small=False):
    n = 6 if small else 150
    return ([(math.cos(i) * i, math.sin(i) * 0.5 * i) for i in range(n)],)
