"""exp and sin by their Taylor series term by term on Python floats, compared with math's."""

import math


def taylor_series(xs, terms):
    worst = 0.0
    for x in xs:
        e = 1.0
        s = 0.0
        term = 1.0
        for k in range(1, terms):
            term *= x / k
            e += term
            if k % 2 == 1:
                s += term if (k // 2) % 2 == 0 else -term
        worst = max(worst, abs(e - math.exp(x)) / math.exp(x), abs(s - math.sin(x)))
    return worst


def setup(small=False):
    count = 5 if small else 3000
    return [-3.0 + 6.0 * k / count for k in range(count)], 30
