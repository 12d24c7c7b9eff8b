"""Longest increasing subsequence by the O(n^2) dynamic programme over a Python list."""


def lis_dp(seq):
    n = len(seq)
    best = [1] * n
    for i in range(1, n):
        for j in range(i):
            if seq[j] < seq[i] and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    return max(best)


def setup(small=False):
    import random

    rng = random.Random(211)
    n = 10 if small else 1500
    return ([rng.randint(0, 10_000) for _ in range(n)],)
