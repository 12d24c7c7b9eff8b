"""Binary search of many queries in a sorted table, one Python while loop per query."""

import numpy as np


def binary_search(table, queries):
    found = np.empty(queries.shape[0], dtype=np.int64)
    for q in range(queries.shape[0]):
        target = queries[q]
        lo = 0
        hi = table.shape[0]
        while lo < hi:
            mid = (lo + hi) // 2
            if table[mid] < target:
                lo = mid + 1
            else:
                hi = mid
        found[q] = lo
    return found


def setup(small=False):
    rng = np.random.default_rng(26)
    n, q = (20, 5) if small else (100000, 2000)
    return np.sort(rng.random(n)), rng.random(q)
