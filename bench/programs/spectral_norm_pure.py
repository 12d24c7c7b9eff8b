"""Spectral norm of the infinite matrix A(i, j) = 1/((i+j)(i+j+1)/2+i+1), pure Python lists."""


def eval_a(i, j):
    return 1.0 / ((i + j) * (i + j + 1) // 2 + i + 1)


def times_a(u):
    n = len(u)
    return [sum(eval_a(i, j) * u[j] for j in range(n)) for i in range(n)]


def times_at(u):
    n = len(u)
    return [sum(eval_a(j, i) * u[j] for j in range(n)) for i in range(n)]


def spectral_norm_pure(n, steps):
    u = [1.0] * n
    v = u
    for _ in range(steps):
        v = times_at(times_a(u))
        u = times_at(times_a(v))
    vbv = 0.0
    vv = 0.0
    for ue, ve in zip(u, v):
        vbv += ue * ve
        vv += ve * ve
    return (vbv / vv) ** 0.5


def setup(small=False):
    return (8, 2) if small else (60, 5)
