"""Levenshtein distance between two strings with a list-of-lists dynamic programming table."""


def edit_distance(s, t):
    m, n = len(s), len(t)
    d = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(m + 1):
        d[i][0] = i
    for j in range(n + 1):
        d[0][j] = j
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = 0 if s[i - 1] == t[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
    return d[m][n]


def setup(small=False):
    import random

    rng = random.Random(104)
    k = 8 if small else 300
    s = "".join(rng.choice("acgt") for _ in range(k))
    t = "".join(rng.choice("acgt") for _ in range(k + 7))
    return s, t
