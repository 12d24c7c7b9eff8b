import numpy as np

from astcompile import compile


def scale(x):
    return x * 2.0


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (scale(x) + 0.044715 * x**3)))


fast_gelu = compile(gelu)
