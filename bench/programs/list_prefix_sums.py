"""Prefix sums of a list into a new list built with append."""


def list_prefix_sums(xs):
    out = []
    s = 0
    for x in xs:
        s += x
        out.append(s)
    return out


def setup(small=False):
    import random

    rng = random.Random(103)
    return ([rng.randint(-50, 50) for _ in range(15 if small else 20000)],)
