"""Squares of the positive floats of a list, appended one by one to a result list (Numba style)."""


def list_append_positive_sq(xs):
    out = []
    for x in xs:
        if x > 0.0:
            out.append(x * x)
    return out


def setup(small=False):
    n = 12 if small else 4000
    return ([((i * 7919) % 1000) / 500.0 - 1.0 for i in range(n)],)
