import numpy as np
import scipy.special as sp

import astcompile as ac
from astcompile import compile as jit


@ac.compile
def unknown_call(x):
    return sp.expit(x) + np.exp(x)


@jit
def guarded(x):
    try:
        return np.log(x)
    except ValueError:
        return x


def helper_noisy(x):
    print(x)
    return x * 2


@ac.disable
def off(x):
    return x


def outer(x):
    y = helper_noisy(x)
    z = off(y)

    def inner(v):
        return v + 1 if v.ndim == 0 else inner(v[0])

    return inner(z)


fast_outer = ac.compile(outer)
