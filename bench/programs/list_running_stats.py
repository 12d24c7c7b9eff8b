"""Mean and standard deviation of a list of floats in pure Python, two passes."""

import math


def list_running_stats(values):
    total = 0.0
    for v in values:
        total += v
    mean = total / len(values)
    acc = 0.0
    for v in values:
        acc += (v - mean) ** 2
    return mean, math.sqrt(acc / (len(values) - 1))


def setup(small=False):
    import random

    rng = random.Random(102)
    return ([rng.gauss(3.0, 2.0) for _ in range(20 if small else 20000)],)
