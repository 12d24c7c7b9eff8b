"""Index and value of the minimum and maximum of a list by functools.reduce over tuples."""

from functools import reduce


def merge_extrema(acc, item):
    lo_i, lo, hi_i, hi = acc
    i, v = item
    if v < lo:
        lo_i, lo = i, v
    if v > hi:
        hi_i, hi = i, v
    return lo_i, lo, hi_i, hi


def extrema_reduce(values):
    start = (-1, float("inf"), -1, float("-inf"))
    return reduce(merge_extrema, enumerate(values), start)


def setup(small=False):
    import random

    rng = random.Random(305)
    return ([rng.uniform(-50, 50) for _ in range(10 if small else 20000)],)
