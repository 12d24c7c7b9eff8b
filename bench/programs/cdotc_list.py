"""BLAS-1 CDOTC on Python lists: the sum of conj(x[i]) * y[i] over strided elements."""


def cdotc_list(n, cx, incx, cy, incy):
    acc = complex(0.0, 0.0)
    for i in range(n):
        acc += cx[i * incx].conjugate() * cy[i * incy]
    return acc


def setup(small=False):
    import random

    rng = random.Random(311)
    n = 8 if small else 20000
    cx = [complex(rng.random(), rng.random()) for _ in range(n)]
    cy = [complex(rng.random(), rng.random()) for _ in range(2 * n)]
    return n, cx, 1, cy, 2
