"""Radix-2 Cooley-Tukey FFT on a list of complex numbers, recursive."""

import cmath


def fft_recursive(x):
    n = len(x)
    if n == 1:
        return x
    even = fft_recursive(x[0::2])
    odd = fft_recursive(x[1::2])
    out = [0j] * n
    for k in range(n // 2):
        t = cmath.exp(-2j * cmath.pi * k / n) * odd[k]
        out[k] = even[k] + t
        out[k + n // 2] = even[k] - t
    return out


def setup(small=False):
    import random

    rng = random.Random(134)
    n = 8 if small else 2048
    return ([complex(rng.random(), rng.random()) for _ in range(n)],)
