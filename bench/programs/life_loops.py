"""Game of Life with explicit loops over cells and a clamped (non-wrapping) border."""

import numpy as np


def life_loops(board, generations):
    rows, cols = board.shape
    for _ in range(generations):
        new = np.zeros_like(board)
        for i in range(rows):
            for j in range(cols):
                count = 0
                for di in range(-1, 2):
                    for dj in range(-1, 2):
                        ii = i + di
                        jj = j + dj
                        if (di != 0 or dj != 0) and 0 <= ii < rows and 0 <= jj < cols:
                            count += board[ii, jj]
                if count == 3 or (count == 2 and board[i, j] == 1):
                    new[i, j] = 1
        board = new
    return board


def setup(small=False):
    rng = np.random.default_rng(5)
    n, gens = (8, 2) if small else (40, 4)
    return (rng.random((n, n)) < 0.35).astype(np.int32), gens
