"""The ``numpy`` module as traced code sees it: its array-creation functions go to the tracer.

Region bodies call ``np.zeros``/``np.array`` through ``__ac_create`` (frontend/lowering.py):
NumPy cannot hand a call with no array argument, or a list of traced scalars, to the tracer.
A user function that a region calls runs unrewritten on traced values (it is inlined), so the
right-hand side of an ODE, ``return np.array([a * x - b * x * y, d * x * y - c * y])``, broke
the region ("conversion to a concrete array"). A traced read of ``numpy`` (a global or closure
cell that is the module, seen through ``library_modules.ModuleRead``) therefore routes the
creation functions through ``ac_create``; every other attribute is NumPy's own object.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

from astcompile.ir.ops import REDUCTION_TO_OP
from astcompile.trace import handlers
from astcompile.trace.numpy_api import CREATION


class Routed:
    """``np.array`` and friends as traced code calls them; leaving a region, it is NumPy's."""

    __slots__ = ("__wrapped__", "real")

    def __init__(self, real: Callable) -> None:
        self.real = self.__wrapped__ = real

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.real in REDUCTION_TO_OP:
            return self.real(*_first_as_array(args), **kwargs)
        return handlers.ac_create(self.real, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self.real.__name__}, as traced code calls it>"


def _first_as_array(args: tuple) -> tuple:
    """A reduction's first argument as NumPy takes it, ``np.asarray(a)``: a Python list or
    tuple of traced numbers (``np.max([lo, hi])``) is a traced array. Left to NumPy, no
    traced value in sight to dispatch on, it became an object array folded with Python's own
    ``+`` and ``>``: a Python number out where NumPy returns ``np.float64``, NaN lost."""
    if args and isinstance(args[0], (list, tuple)):
        return (handlers.as_operand(args[0]), *args[1:])
    return args


def routed(module: types.ModuleType, value: Any, seen: Any) -> Any:
    """What traced code calls for ``value``, an attribute of ``module`` that the trace sees as
    ``seen``: NumPy's creation functions and reductions go to the tracer."""
    if module.__name__ != "numpy" or not isinstance(value, Callable):
        return seen
    if value not in CREATION and value not in REDUCTION_TO_OP:
        return seen
    return _routed(value)


@functools.cache
def _routed(real: Callable) -> Routed:  # one per function: ``np.zeros is np.zeros`` holds
    return Routed(real)
