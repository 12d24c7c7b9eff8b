"""Square roots by Newton's iteration on Python floats until the step is tiny."""


def newton_sqrt(values, tol):
    roots = []
    for a in values:
        x = a if a > 1.0 else 1.0
        while True:
            nxt = 0.5 * (x + a / x)
            if abs(nxt - x) < tol * nxt:
                break
            x = nxt
        roots.append(nxt)
    return roots


def setup(small=False):
    import random

    rng = random.Random(133)
    return [rng.uniform(0.01, 1e6) for _ in range(10 if small else 5000)], 1e-12
