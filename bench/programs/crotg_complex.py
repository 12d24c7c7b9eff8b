"""BLAS CROTG: the complex Givens rotation that zeroes b, on two Python complex scalars."""

import math


def crotg_complex(ca, cb):
    if abs(ca) == 0.0:
        return 0.0, complex(1.0, 0.0), cb
    scale = abs(ca) + abs(cb)
    norm = scale * math.sqrt(abs(ca / scale) ** 2 + abs(cb / scale) ** 2)
    alpha = ca / abs(ca)
    c = abs(ca) / norm
    s = alpha * cb.conjugate() / norm
    return c, s, alpha * norm


def setup(small=False):
    return complex(3.0, -1.5), complex(0.5, 2.25)
