"""Index of each query in a sorted array by linear scan, `for ... else` giving -1 when absent."""

import numpy as np


def for_else_search(sorted_values, queries):
    found = np.empty(queries.shape[0], dtype=np.int64)
    for k in range(queries.shape[0]):
        for i in range(sorted_values.shape[0]):
            if sorted_values[i] == queries[k]:
                found[k] = i
                break
        else:
            found[k] = -1
    return found


def setup(small=False):
    rng = np.random.default_rng(83)
    values = np.unique(rng.integers(0, 40 if small else 4000, 20 if small else 1500))
    return values, rng.integers(0, 40 if small else 4000, 5 if small else 100)
