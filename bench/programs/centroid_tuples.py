"""Centroid and bounding box of points given as a list of (x, y) tuples."""


def centroid_tuples(points):
    sx = sy = 0.0
    xmin = ymin = float("inf")
    xmax = ymax = float("-inf")
    for x, y in points:
        sx += x
        sy += y
        xmin = min(xmin, x)
        xmax = max(xmax, x)
        ymin = min(ymin, y)
        ymax = max(ymax, y)
    n = len(points)
    return (sx / n, sy / n), (xmin, ymin, xmax, ymax)


def setup(small=False):
    import random

    rng = random.Random(136)
    return ([(rng.gauss(0, 1), rng.gauss(2, 3)) for _ in range(10 if small else 50000)],)
