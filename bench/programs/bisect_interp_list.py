"""Piecewise-linear interpolation of many query points on sorted Python lists via bisect."""

from bisect import bisect_right


def bisect_interp_list(xs, ys, queries):
    out = []
    last = len(xs) - 1
    for q in queries:
        k = bisect_right(xs, q)
        if k == 0:
            out.append(ys[0])
        elif k > last:
            out.append(ys[last])
        else:
            t = (q - xs[k - 1]) / (xs[k] - xs[k - 1])
            out.append(ys[k - 1] + t * (ys[k] - ys[k - 1]))
    return out


def setup(small=False):
    import random

    rng = random.Random(314)
    n = 10 if small else 2000
    xs = sorted(rng.uniform(0.0, 100.0) for _ in range(n))
    ys = [rng.gauss(0.0, 1.0) for _ in range(n)]
    return xs, ys, [rng.uniform(-5.0, 105.0) for _ in range(20 if small else 20000)]
