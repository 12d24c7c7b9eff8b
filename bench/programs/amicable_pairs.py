"""Amicable pairs below a bound from a divisor-sum sieve on a Python list of ints."""


def amicable_pairs(limit):
    sums = [0] * limit
    for d in range(1, limit // 2 + 1):
        for multiple in range(2 * d, limit, d):
            sums[multiple] += d
    pairs = []
    for a in range(2, limit):
        b = sums[a]
        if a < b < limit and sums[b] == a:
            pairs.append((a, b))
    return pairs


def setup(small=False):
    return (300 if small else 20000,)
