"""The seed examples of compiler_disable.md, with astcompile in place of torch.compile."""

import numpy as np

import astcompile


def inner1(x):
    astcompile.graph_break()  # not traced
    return x + 1  # not traced


@astcompile.disable
def outer1(x):
    x = x + 2  # not traced
    astcompile.graph_break()  # not traced
    return inner1(x)


@astcompile.compile
def f(x):
    x = outer1(x)
    return x + 4  # traced


def inner2(x):
    astcompile.graph_break()  # traced
    return x + 1  # traced


@astcompile.disable(recursive=False)
def outer2(x):
    x = x + 2  # not traced
    astcompile.graph_break()  # not traced
    return inner2(x)


@astcompile.compile
def g(x):
    x = outer2(x)
    return x + 4  # traced


def toy_example(a, b):
    x = a / (np.abs(a) + 1)
    print("woo")
    if b.sum() < 0:
        b = b * -1
    return x * b
