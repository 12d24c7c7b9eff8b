"""Programs that raise inside compiled code, for tests/test_eager_errors.py. A module of its
own: pytest rewrites the ``assert`` statements of test modules, and the plain program's
AssertionError would then differ from the one compiled code raises."""

from __future__ import annotations

import math

import numpy as np


def past_end(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i + 1]
    return s


def divides(x):
    s = 0.0
    for i in range(len(x)):
        x_item = float(x[i])
        s = s + 1.0 / x_item
    return s


def truncates(x):
    s = 0
    for i in range(len(x)):
        s = s + int(x[i])
    return s


def raises(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] < 0.5:
            raise ValueError("too small")
        s = s + x[i]
    return s


def asserts(x):
    s = 0.0
    for i in range(len(x)):
        assert x[i] > 0.5, "too small"
        s = s + x[i]
    return s


def nested(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            s = s + x[i, j + 1]
    return s


def in_a_branch(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.5:
            s = s + math.sqrt(x[i] - 2.0)
        else:
            s = s + 1.0
    return s


def from_a_list(x, items):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * items[i + 1]
    return s


def until(x):
    i = 0
    s = 0.0
    while s < 100.0:
        s = s + x[i]
        i = i + 1
    return s


def stores_past(x, out):
    for i in range(len(x)):
        out[i + 2] = x[i] * 2.0
    return out


def adds(x, y):
    z = x * 2.0
    return z + y


def inverts(a):
    b = a * 2.0
    return np.linalg.inv(b) + 1.0


def picks(x, idx):
    y = x * 2.0
    return y[idx] + 1.0
