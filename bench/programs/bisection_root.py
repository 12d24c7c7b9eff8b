"""Roots of many cubics by bisection on Python floats, one call per polynomial."""


def bisection_root(coeffs, lo, hi, tol):
    roots = []
    for a, b, c, d in coeffs:
        f_lo = ((a * lo + b) * lo + c) * lo + d
        x_lo, x_hi = lo, hi
        while x_hi - x_lo > tol:
            mid = 0.5 * (x_lo + x_hi)
            f_mid = ((a * mid + b) * mid + c) * mid + d
            if (f_mid < 0) == (f_lo < 0):
                x_lo, f_lo = mid, f_mid
            else:
                x_hi = mid
        roots.append(0.5 * (x_lo + x_hi))
    return roots


def setup(small=False):
    import random

    rng = random.Random(135)
    coeffs = [
        (1.0, rng.uniform(-1, 1), rng.uniform(-1, 1), -rng.uniform(0.5, 2))
        for _ in range(5 if small else 2000)
    ]
    return coeffs, -10.0, 10.0, 1e-10
