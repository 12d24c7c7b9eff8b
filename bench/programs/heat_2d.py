"""2-D heat equation on a plate with a hot edge; the field is updated in place each step."""

import numpy as np


def heat_2d(T, alpha, steps):
    for step in range(steps):
        lap = T[:-2, 1:-1] + T[2:, 1:-1] + T[1:-1, :-2] + T[1:-1, 2:] - 4.0 * T[1:-1, 1:-1]
        T[1:-1, 1:-1] += alpha * lap
        T[0, :] = 100.0
    return T.mean()


def setup(small=False):
    n, steps = (16, 5) if small else (256, 60)
    T = np.zeros((n, n))
    T[0, :] = 100.0
    return T, 0.2, steps
