import numpy as np

import astcompile


@astcompile.compile
def scale(x):
    return x * 2.0


@astcompile.compile
def shift(x):
    return x + 1.0


@astcompile.compile
def square(x):
    return np.square(x)
