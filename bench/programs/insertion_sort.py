"""Insertion sort in place with a while loop that shifts larger elements right."""

import numpy as np


def insertion_sort(a):
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def setup(small=False):
    rng = np.random.default_rng(25)
    return (rng.integers(0, 1000, 12 if small else 400),)
