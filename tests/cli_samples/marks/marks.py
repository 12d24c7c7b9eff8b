"""Module-level marks, which the static check must follow like the runtime does."""

import numpy as np

import astcompile as ac


def noisy(x):
    print(x)
    return x


def trusted(x):
    print(x)
    return x


def pure(x):
    return np.abs(x) * 2


def shallow(x):
    return x + 1


ac.allow_in_graph(trusted)
ac.disallow_in_graph(pure)
quiet = ac.disable(noisy)
shallow_off = ac.disable(recursive=False)(shallow)
fast = ac.compile(shallow)
also_trusted = ac.allow_in_graph(trusted)


@ac.compile
def user(x):
    a = noisy(x)
    b = trusted(a)
    c = pure(b)
    d = quiet(c)
    e = shallow_off(d)
    f = fast(e)
    g = also_trusted(f)
    return g
