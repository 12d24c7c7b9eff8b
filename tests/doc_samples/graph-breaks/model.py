"""A model step whose progress print breaks the graph (docs/graph-breaks.md)."""

import numpy as np

import astcompile


def relu(x):
    return np.maximum(x, 0.0)


@astcompile.compile
def step(w, x, lr):
    h = relu(x @ w)
    loss = np.mean(h * h)
    print(loss)
    return w - lr * (x.T @ h) / len(x)
