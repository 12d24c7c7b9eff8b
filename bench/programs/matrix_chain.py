"""Matrix-chain multiplication order: the classic DP table on lists of lists."""


def matrix_chain(dims):
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            best = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if best is None or c < best:
                    best = c
            cost[i][j] = best
    return cost[0][n - 1]


def setup(small=False):
    import random

    rng = random.Random(212)
    n = 6 if small else 120
    return ([rng.randint(5, 100) for _ in range(n + 1)],)
