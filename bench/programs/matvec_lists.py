"""Matrix-vector product and residual norm on lists, as ported from a C textbook."""

import math


def matvec_lists(A, x, b):
    r = []
    for i in range(len(A)):
        s = 0.0
        row = A[i]
        for j in range(len(x)):
            s += row[j] * x[j]
        r.append(b[i] - s)
    return math.sqrt(sum(v * v for v in r))


def setup(small=False):
    import random

    rng = random.Random(140)
    n = 4 if small else 250
    A = [[rng.random() for _ in range(n)] for _ in range(n)]
    return A, [rng.random() for _ in range(n)], [rng.random() for _ in range(n)]
