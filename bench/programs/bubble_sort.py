"""Bubble sort in place with the early exit when a pass makes no swap."""

import numpy as np


def bubble_sort(a):
    n = a.shape[0]
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
                swapped = True
        if not swapped:
            break
    return a


def setup(small=False):
    rng = np.random.default_rng(24)
    return (rng.random(12 if small else 300),)
