"""In-place heap sort of a NumPy array with a sift-down helper called in loops (Numba style)."""

import numpy as np


def sift_down(a, start, end):
    root = start
    while 2 * root + 1 <= end:
        child = 2 * root + 1
        if child + 1 <= end and a[child] < a[child + 1]:
            child += 1
        if a[root] < a[child]:
            a[root], a[child] = a[child], a[root]
            root = child
        else:
            return


def heap_sort_array(a):
    n = a.shape[0]
    for start in range((n - 2) // 2, -1, -1):
        sift_down(a, start, n - 1)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        sift_down(a, 0, end - 1)
    return a


def setup(small=False):
    rng = np.random.default_rng(23)
    return (rng.random(12 if small else 20_000),)
