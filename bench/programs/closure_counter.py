"""A nested function closing over a running total, called in a loop (nested functions)."""


def closure_counter(values, threshold):
    total = 0.0
    hits = 0

    def accept(v):
        return v > threshold and v < 10 * threshold

    for v in values:
        if accept(v):
            total += v
            hits += 1
    return total, hits


def setup(small=False):
    import random

    rng = random.Random(220)
    return [rng.random() for _ in range(20 if small else 100_000)], 0.05
