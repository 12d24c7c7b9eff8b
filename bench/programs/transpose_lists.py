"""Transpose of a list of lists of floats built row by row with append (pure-Python matrices)."""


def transpose_lists(rows):
    n, m = len(rows), len(rows[0])
    out = []
    for j in range(m):
        col = []
        for i in range(n):
            col.append(rows[i][j])
        out.append(col)
    return out


def setup(small=False):
    n, m = (3, 4) if small else (80, 60)
    return ([[float(i * m + j) for j in range(m)] for i in range(n)],)
