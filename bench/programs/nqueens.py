"""Number of N-queens solutions by recursive backtracking over column and diagonal sets."""


def place(row, n, cols, diag1, diag2):
    if row == n:
        return 1
    count = 0
    for c in range(n):
        if c in cols or (row + c) in diag1 or (row - c) in diag2:
            continue
        cols.add(c)
        diag1.add(row + c)
        diag2.add(row - c)
        count += place(row + 1, n, cols, diag1, diag2)
        cols.remove(c)
        diag1.remove(row + c)
        diag2.remove(row - c)
    return count


def nqueens(n):
    return place(0, n, set(), set(), set())


def setup(small=False):
    return (5 if small else 8,)
