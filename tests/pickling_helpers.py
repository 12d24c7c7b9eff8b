"""Compiled functions for tests/test_pickling.py that a spawned process can import by name."""

from __future__ import annotations

import numpy as np

import astcompile


@astcompile.compile
def scaled_sine(x: np.ndarray) -> np.ndarray:
    return np.sin(x) * 2.0 + 1.0


@astcompile.compile
def row_sums(x: np.ndarray) -> np.ndarray:
    return np.sum(x * x, axis=1)


def make_scaler(k: float):
    """A compiled closure: not importable by name, so it pickles by value."""

    @astcompile.compile
    def scale(x: np.ndarray) -> np.ndarray:
        return x * k + 1.0

    return scale


class Model:
    """A class whose method is compiled: a bound method pickles as ``getattr(model, name)``."""

    def __init__(self, weight: float) -> None:
        self.weight = weight

    @astcompile.compile
    def apply(self, x: np.ndarray) -> np.ndarray:
        return np.tanh(x) * self.weight


def plain_cube(x: np.ndarray) -> np.ndarray:
    return x * x * x


#: Compiled under another name: the module's ``plain_cube`` is the plain function.
cube = astcompile.compile(plain_cube)
