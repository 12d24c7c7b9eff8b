"""Adaptive Heun-Euler steps on a scalar ODE, Numba @njit style: step factor (tol/err) ** 0.5."""

import math

import numpy as np


def adaptive_heun(y0s, t_end, tol):
    out = np.empty(y0s.shape[0])
    for k in range(y0s.shape[0]):
        t = 0.0
        y = y0s[k]
        h = 0.01
        while t < t_end:
            if t + h > t_end:
                h = t_end - t
            f0 = math.cos(t) - 0.5 * y
            y_euler = y + h * f0
            f1 = math.cos(t + h) - 0.5 * y_euler
            y_heun = y + 0.5 * h * (f0 + f1)
            err = abs(y_heun - y_euler) + 1e-16
            if err <= tol:
                t += h
                y = y_heun
            h *= min(2.0, max(0.2, 0.9 * (tol / err) ** 0.5))
        out[k] = y
    return out


def setup(small=False):
    rng = np.random.default_rng(94)
    n = 3 if small else 40
    return rng.random(n) * 2.0, 10.0, 1e-7
