"""BLAS-1 CAXPY, Fortran-style: y += a*x on Python lists of complex with increments, in place."""


def caxpy_list(n, ca, cx, incx, cy, incy):
    if n <= 0 or abs(ca) == 0.0:
        return cy
    if incx == 1 and incy == 1:
        for i in range(n):
            cy[i] = cy[i] + ca * cx[i]
        return cy
    ix = (-n + 1) * incx if incx < 0 else 0
    iy = (-n + 1) * incy if incy < 0 else 0
    for _ in range(n):
        cy[iy] = cy[iy] + ca * cx[ix]
        ix += incx
        iy += incy
    return cy


def setup(small=False):
    import random

    rng = random.Random(301)
    n = 8 if small else 4000
    cx = [complex(rng.random(), rng.random()) for _ in range(2 * n)]
    cy = [complex(rng.random(), rng.random()) for _ in range(3 * n)]
    return n, complex(1.1, -0.7), cx, 2, cy, 3
