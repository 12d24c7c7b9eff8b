"""What a call's amount of work follows, coarsely: measuring (jit/tiering.py) compares two
paths only over calls of the same sizes, and a call with a lazy collection is never timed."""

from __future__ import annotations

from typing import Any

import numpy as np


def size_class(value: Any) -> Any:
    """What decides a call's amount of work, coarsely: array sizes and ints by bit length."""
    if isinstance(value, np.ndarray):
        return value.size.bit_length()
    if type(value) is int:
        return ("int", value.bit_length())
    if isinstance(value, (list, tuple)):
        return (type(value), len(value).bit_length())
    return type(value)


def lazy(value: Any) -> bool:
    """A Dask collection: calling with one builds a graph, which says nothing of compute."""
    return hasattr(type(value), "__dask_graph__")


def signature(args: tuple, kwargs: dict) -> tuple:
    return tuple(map(size_class, args)) + tuple((k, size_class(v)) for k, v in kwargs.items())
