"""Black-Scholes prices by a scalar loop with math.erf filling np.empty (Numba examples)."""

import math

import numpy as np


def cnd(d):
    return 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))


def black_scholes_math(stock, strike, years, rate, vol):
    n = stock.shape[0]
    call = np.empty(n)
    put = np.empty(n)
    for i in range(n):
        s = math.sqrt(years[i])
        d1 = (math.log(stock[i] / strike[i]) + (rate + 0.5 * vol * vol) * years[i]) / (vol * s)
        d2 = d1 - vol * s
        e = math.exp(-rate * years[i])
        call[i] = stock[i] * cnd(d1) - strike[i] * e * cnd(d2)
        put[i] = strike[i] * e * (1.0 - cnd(d2)) - stock[i] * (1.0 - cnd(d1))
    return call, put


def setup(small=False):
    rng = np.random.default_rng(207)
    n = 10 if small else 50_000
    return rng.uniform(5, 30, n), rng.uniform(1, 100, n), rng.uniform(0.25, 10, n), 0.02, 0.3
