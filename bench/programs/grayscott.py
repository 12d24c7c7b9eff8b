"""Gray-Scott reaction-diffusion steps on a grid with slice Laplacians."""

import numpy as np


def grayscott(U, V, Du, Dv, F, k, steps):
    u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]
    for _ in range(steps):
        Lu = U[0:-2, 1:-1] + U[1:-1, 0:-2] - 4 * u + U[1:-1, 2:] + U[2:, 1:-1]
        Lv = V[0:-2, 1:-1] + V[1:-1, 0:-2] - 4 * v + V[1:-1, 2:] + V[2:, 1:-1]
        uvv = u * v * v
        u += Du * Lu - uvv + F * (1 - u)
        v += Dv * Lv + uvv - (F + k) * v
    return V


def setup(small=False):
    n = 8 if small else 128
    U = np.ones((n + 2, n + 2))
    V = np.zeros((n + 2, n + 2))
    r = n // 4
    U[n // 2 - r : n // 2 + r, n // 2 - r : n // 2 + r] = 0.5
    V[n // 2 - r : n // 2 + r, n // 2 - r : n // 2 + r] = 0.25
    return U, V, 0.16, 0.08, 0.035, 0.065, 3 if small else 40
