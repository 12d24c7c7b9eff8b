"""0/1 knapsack: the best value within a capacity, one list updated backwards per item."""


def knapsack_dp(weights, values, capacity):
    best = [0] * (capacity + 1)
    for w, v in zip(weights, values):
        for c in range(capacity, w - 1, -1):
            if best[c - w] + v > best[c]:
                best[c] = best[c - w] + v
    return best[capacity]


def setup(small=False):
    import random

    rng = random.Random(105)
    n = 6 if small else 120
    weights = [rng.randint(1, 30) for _ in range(n)]
    values = [rng.randint(1, 100) for _ in range(n)]
    return weights, values, 40 if small else 1000
