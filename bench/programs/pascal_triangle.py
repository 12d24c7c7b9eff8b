"""Rows of Pascal's triangle as lists of exact (big) Python ints."""


def pascal_triangle(n):
    row = [1]
    for _ in range(n):
        new = [1] * (len(row) + 1)
        for k in range(1, len(row)):
            new[k] = row[k - 1] + row[k]
        row = new
    return row[len(row) // 2], sum(row)


def setup(small=False):
    return (10 if small else 300,)
