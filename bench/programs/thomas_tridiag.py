"""Tridiagonal solve by the Thomas algorithm: forward sweep and back substitution loops."""

import numpy as np


def thomas_tridiag(a, b, c, d):
    n = d.shape[0]
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def setup(small=False):
    rng = np.random.default_rng(12)
    n = 8 if small else 20000
    a = rng.uniform(-1, 0, n)
    c = rng.uniform(-1, 0, n)
    b = 2.5 + rng.random(n)
    return a, b, c, rng.normal(size=n)
