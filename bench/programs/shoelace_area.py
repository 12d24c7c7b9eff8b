"""Shoelace areas and centroids of many small polygons given as lists of (x, y) tuples."""

import math


def shoelace_area(polygons):
    results = []
    for poly in polygons:
        area = 0.0
        cx = 0.0
        cy = 0.0
        n = len(poly)
        for i in range(n):
            x0, y0 = poly[i]
            x1, y1 = poly[(i + 1) % n]
            cross = x0 * y1 - x1 * y0
            area += cross
            cx += (x0 + x1) * cross
            cy += (y0 + y1) * cross
        area *= 0.5
        results.append((area, cx / (6.0 * area), cy / (6.0 * area)))
    return results


def setup(small=False):
    polys = []
    for p in range(3 if small else 3000):
        k = 3 + p % 9
        radii = [1.0 + ((p * 31 + q * 17) % 10) / 20.0 for q in range(k)]
        angles = [2.0 * math.pi * q / k for q in range(k)]
        polys.append([(r * math.cos(a) + p, r * math.sin(a)) for r, a in zip(radii, angles)])
    return (polys,)
