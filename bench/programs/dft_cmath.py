"""Naive discrete Fourier transform with cmath.exp and a Python complex accumulator."""

import cmath

import numpy as np


def dft_cmath(x):
    N = x.shape[0]
    out = np.zeros(N, dtype=np.complex128)
    for k in range(N):
        s = 0j
        for n in range(N):
            s += x[n] * cmath.exp(-2j * cmath.pi * k * n / N)
        out[k] = s
    return out


def setup(small=False):
    rng = np.random.default_rng(135)
    return (rng.standard_normal(8 if small else 256),)
