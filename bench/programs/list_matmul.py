"""Matrix product of two lists of lists with a triple loop, as taught before NumPy."""


def list_matmul(a, b):
    n, m, p = len(a), len(b), len(b[0])
    c = [[0.0] * p for _ in range(n)]
    for i in range(n):
        for j in range(p):
            s = 0.0
            for k in range(m):
                s += a[i][k] * b[k][j]
            c[i][j] = s
    return c


def setup(small=False):
    import random

    rng = random.Random(101)
    n = 4 if small else 60
    m = 3 if small else 40
    a = [[rng.random() for _ in range(m)] for _ in range(n)]
    b = [[rng.random() for _ in range(n)] for _ in range(m)]
    return a, b
