"""Trapezoid rule over a Python float loop calling math functions."""

import math


def trapezoid_math(a, b, n):
    h = (b - a) / n
    s = 0.5 * (math.exp(-a * a) * math.cos(a) + math.exp(-b * b) * math.cos(b))
    for i in range(1, n):
        x = a + i * h
        s += math.exp(-x * x) * math.cos(x)
    return s * h


def setup(small=False):
    return -3.0, 3.0, 20 if small else 200000
