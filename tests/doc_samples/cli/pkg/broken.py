import numpy as np


def f(x:
    return x
