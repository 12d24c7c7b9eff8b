"""Monotone-chain convex hull of a list of (x, y) tuples, sorted and walked with a stack."""


def cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex_hull_tuples(points):
    pts = sorted(points)
    lower = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def setup(small=False):
    import random

    rng = random.Random(209)
    n = 10 if small else 20_000
    return ([(rng.random(), rng.random()) for _ in range(n)],)
