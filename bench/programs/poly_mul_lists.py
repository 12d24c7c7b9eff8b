"""Product of two polynomials given as coefficient lists (a discrete convolution)."""


def poly_mul_lists(p, q):
    out = [0.0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return out


def setup(small=False):
    import random

    rng = random.Random(130)
    n = 5 if small else 400
    return [rng.random() for _ in range(n)], [rng.random() for _ in range(n)]
