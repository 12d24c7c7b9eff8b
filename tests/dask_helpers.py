"""Compiled functions for the Dask tests: importable by name in a worker process."""

from __future__ import annotations

import numpy as np

import astcompile


@astcompile.compile
def chain(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.sin(x) * y + np.sqrt(np.abs(x - y)) * 0.5


@astcompile.compile
def column_sums(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.sum(np.exp(-x) * y, axis=0)


@astcompile.compile
def row_max(x: np.ndarray) -> np.ndarray:
    return np.max(x * x - x, axis=1, keepdims=True)


@astcompile.compile
def total(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.sum(x * y + 1.0)


@astcompile.compile
def any_negative(x: np.ndarray) -> np.ndarray:
    return np.any(x - 0.999 > 0)


@astcompile.compile
def laplacian(u: np.ndarray) -> np.ndarray:
    return u[1:-1, 1:-1] * 4.0 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]


@astcompile.compile
def gradient(u: np.ndarray) -> np.ndarray:
    return u[1:] - u[:-1]


@astcompile.compile
def with_break(x: np.ndarray) -> np.ndarray:
    y = np.exp(x) * 2.0
    astcompile.graph_break()
    z = y - y.mean()  # an ordinary NumPy statement on the Dask array
    return np.sum(z * z, axis=0)


@astcompile.compile
def with_position(x: np.ndarray) -> np.ndarray:
    return x * np.arange(x.shape[1])  # depends on where an element is: Dask's NumPy API


def make_shifted(shift: float):
    """A compiled closure: it reaches the workers by value."""

    @astcompile.compile
    def shifted(x: np.ndarray) -> np.ndarray:
        return np.tanh(x + shift)

    return shifted


def region_calls(name: str) -> tuple[int, int]:
    """(compiled, eager) calls of this module's compiled function ``name`` in this process:
    what a worker ran (``client.run``)."""
    regions = globals()[name].regions
    return (
        sum(r.stats.compiled_calls for r in regions),
        sum(r.stats.eager_calls for r in regions),
    )


def rebuilt_functions() -> list[tuple[str, bool, int]]:
    """Each compiled function this process unpickled by value (a closure, the reductions'
    combine steps): its name, whether it was rewritten from its source (not run as it is, for
    want of one) and how many compiled region calls it made."""
    from astcompile.jit import pickling

    return [
        (f.name, f.rewritten_source is not None, sum(r.stats.compiled_calls for r in f.regions))
        for f in list(pickling._rebuilt.values())
    ]
