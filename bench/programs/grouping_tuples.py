"""Aggregating a list of (key, value) tuples into per-key sum, min and max with a dict."""


def grouping_tuples(records):
    stats = {}
    for key, value in records:
        if key in stats:
            s, lo, hi, n = stats[key]
            stats[key] = (s + value, min(lo, value), max(hi, value), n + 1)
        else:
            stats[key] = (value, value, value, 1)
    return sorted((k, s / n, lo, hi) for k, (s, lo, hi, n) in stats.items())


def setup(small=False):
    import random

    rng = random.Random(221)
    n = 30 if small else 100_000
    return ([(rng.randint(0, 50), rng.random()) for _ in range(n)],)
