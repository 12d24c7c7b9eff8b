"""Elementary cellular automaton (rule 30): a lookup table indexed by the 3-cell pattern."""

import numpy as np


def rule30(cells, generations, rule):
    table = np.array([(rule >> k) & 1 for k in range(8)], dtype=np.uint8)
    history = np.zeros((generations + 1, cells.shape[0]), dtype=np.uint8)
    history[0] = cells
    for g in range(generations):
        left = np.roll(cells, 1)
        right = np.roll(cells, -1)
        pattern = 4 * left + 2 * cells + right
        cells = table[pattern]
        history[g + 1] = cells
    return history


def setup(small=False):
    n, gens = (16, 4) if small else (801, 400)
    cells = np.zeros(n, dtype=np.uint8)
    cells[n // 2] = 1
    return cells, gens, 30
