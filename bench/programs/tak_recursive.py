"""Takeuchi's tak function, the Lisp-era recursion benchmark, on small ints."""


def tak_recursive(x, y, z):
    if y < x:
        return tak_recursive(
            tak_recursive(x - 1, y, z), tak_recursive(y - 1, z, x), tak_recursive(z - 1, x, y)
        )
    return z


def setup(small=False):
    return (6, 4, 2) if small else (14, 8, 2)
