"""Compiled functions with declared signatures (decorator and pyproject.toml)."""

import numpy as np

import astcompile


def poly(x):
    return x * x + 1.0


@astcompile.compile(signatures=["float32[:]", "float64[:]"])
def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


@astcompile.compile(signatures=["float64[:, :], float64[:]"])
def affine(X, b):
    return np.exp(X) * poly(b)


@astcompile.compile
def scaled(x, alpha):
    y = x * alpha
    astcompile.graph_break()
    return np.sqrt(y) + 1.0
