"""Adaptive Runge-Kutta-Fehlberg 4(5) on a scalar ODE: a while loop that grows and cuts the step."""

import math


def rhs(t, y):
    return -2.0 * t * y + math.sin(t)


def rkf45_adaptive(t_end, tol):
    t, y, h = 0.0, 1.0, 0.1
    steps = rejected = 0
    while t < t_end:
        h = min(h, t_end - t)
        k1 = h * rhs(t, y)
        k2 = h * rhs(t + h / 4, y + k1 / 4)
        k3 = h * rhs(t + 3 * h / 8, y + 3 * k1 / 32 + 9 * k2 / 32)
        k4 = h * rhs(t + 12 * h / 13, y + 1932 * k1 / 2197 - 7200 * k2 / 2197 + 7296 * k3 / 2197)
        k5 = h * rhs(t + h, y + 439 * k1 / 216 - 8 * k2 + 3680 * k3 / 513 - 845 * k4 / 4104)
        k6 = h * rhs(
            t + h / 2,
            y - 8 * k1 / 27 + 2 * k2 - 3544 * k3 / 2565 + 1859 * k4 / 4104 - 11 * k5 / 40,
        )
        y4 = y + 25 * k1 / 216 + 1408 * k3 / 2565 + 2197 * k4 / 4104 - k5 / 5
        y5 = y + 16 * k1 / 135 + 6656 * k3 / 12825 + 28561 * k4 / 56430 - 9 * k5 / 50 + 2 * k6 / 55
        err = abs(y5 - y4)
        if err <= tol:
            t += h
            y = y4
            steps += 1
        else:
            rejected += 1
        h *= min(4.0, max(0.1, 0.84 * (tol / max(err, 1e-300)) ** 0.25))
    return y, steps, rejected


def setup(small=False):
    return (1.0, 1e-6) if small else (40.0, 1e-10)
