"""Pi by Machin's arctan series and the Leibniz series, scalar math on Python floats."""

import math


def arctan_series(x, terms):
    s = 0.0
    p = x
    for k in range(terms):
        s += (-1) ** k * p / (2 * k + 1)
        p *= x * x
    return s


def machin_pi(terms):
    machin = 4.0 * (4.0 * arctan_series(0.2, 20) - arctan_series(1.0 / 239.0, 20))
    leibniz = 0.0
    for k in range(terms):
        leibniz += (1.0 if k % 2 == 0 else -1.0) / (2 * k + 1)
    return machin, 4.0 * leibniz, abs(machin - math.pi)


def setup(small=False):
    return (20 if small else 200_000,)
