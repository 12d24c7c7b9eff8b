"""`if` tests over locals: data-dependent when the local holds array values, static otherwise."""

import numpy as np

import astcompile


@astcompile.compile(backend="eager")
def signed_shift(x):
    s = x.sum()
    if s > 0:
        y = x - s
    else:
        y = x + s
    return y


@astcompile.compile(backend="eager")
def halve_if_large(x):
    large = np.max(x) > 1.0
    if large:
        x = x / 2.0
    return x


@astcompile.compile(backend="eager")
def positive_total(x):
    total = 0.0
    for v in x:
        if v > 0:
            total = total + v
    return total


@astcompile.compile(backend="eager")
def shaped(x, scale):
    n = x.shape[0] * 2
    k = scale + 1
    if n > 4 and k > 1:
        x = x * k
    for i in range(3):
        if i > 0:
            x = x + i
    return x


@astcompile.compile(backend="eager")
def defaulted(x, out=None):
    y = out
    if y is None:
        y = np.abs(x)
    return y * 2.0
