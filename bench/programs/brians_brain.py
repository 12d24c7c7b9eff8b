"""Brian's Brain cellular automaton (three states) with explicit neighbour loops on int8 cells."""

import numpy as np


def brians_brain(cells, steps):
    n, m = cells.shape
    cur = cells.copy()
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        for i in range(n):
            for j in range(m):
                state = cur[i, j]
                if state == 1:
                    nxt[i, j] = 2
                elif state == 0:
                    on = 0
                    for di in (-1, 0, 1):
                        for dj in (-1, 0, 1):
                            if cur[(i + di) % n, (j + dj) % m] == 1:
                                on += 1
                    if on == 2:
                        nxt[i, j] = 1
        cur = nxt
    return cur


def setup(small=False):
    rng = np.random.default_rng(73)
    n = 8 if small else 120
    return rng.integers(0, 3, (n, n)).astype(np.int8), 2 if small else 8
