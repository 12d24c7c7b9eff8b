"""Both roots of many quadratics with cmath.sqrt, stored into complex arrays."""

import cmath

import numpy as np


def quadratic_roots(a, b, c):
    n = a.shape[0]
    r1 = np.empty(n, dtype=np.complex128)
    r2 = np.empty(n, dtype=np.complex128)
    for i in range(n):
        d = cmath.sqrt(b[i] * b[i] - 4.0 * a[i] * c[i])
        r1[i] = (-b[i] + d) / (2.0 * a[i])
        r2[i] = (-b[i] - d) / (2.0 * a[i])
    return r1, r2


def setup(small=False):
    rng = np.random.default_rng(137)
    n = 10 if small else 50000
    return rng.uniform(0.5, 2.0, n), rng.standard_normal(n), rng.standard_normal(n)
