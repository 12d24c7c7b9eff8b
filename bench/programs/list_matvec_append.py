"""Matrix-vector product on lists of lists, each row's dot product appended (Pythran style)."""


def list_matvec_append(matrix, vector):
    result = []
    for row in matrix:
        s = 0.0
        for a, b in zip(row, vector):
            s += a * b
        result.append(s)
    return result


def setup(small=False):
    n = 4 if small else 120
    matrix = [[((i + 1) * (j + 2) % 7) / 7.0 for j in range(n)] for i in range(n)]
    return matrix, [1.0 / (j + 1) for j in range(n)]
