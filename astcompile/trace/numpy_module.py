"""The ``numpy`` module as traced code sees it: its array-creation functions go to the tracer.

Region bodies call ``np.zeros``/``np.array`` through ``__ac_create`` (frontend/lowering.py):
NumPy cannot hand a call with no array argument, or a list of traced scalars, to the tracer.
A user function that a region calls runs unrewritten on traced values (it is inlined), so the
right-hand side of an ODE, ``return np.array([a * x - b * x * y, d * x * y - c * y])``, broke
the region ("conversion to a concrete array"). A traced read of ``numpy`` (a global or closure
cell that is the module, seen through ``library_modules.ModuleRead``) therefore routes the
creation functions through ``ac_create``. Its other functions are routed too, for one case:
traced numbers that reach them only inside a Python list or tuple (``np.max([lo, hi])``,
``np.sum(t)`` of a tuple argument), where NumPy finds nothing to dispatch on and computes on
an object array (Python's ``+`` and ``>``: a Python number out, NaN lost). Its types,
ufuncs and other attributes are NumPy's own objects.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir.ops import REDUCTION_TO_OP
from astcompile.trace import handlers, scalars
from astcompile.trace.context import TraceBreak, is_tracing
from astcompile.trace.numpy_api import CREATION, FUNCTIONS
from astcompile.trace.numpy_bind import call_function
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar

_TRACED = (SymArray, SymScalar, SymInt)


class Routed:
    """``np.array`` and friends as traced code calls them; leaving a region, it is NumPy's."""

    __slots__ = ("__wrapped__", "real")

    def __init__(self, real: Callable) -> None:
        self.real = self.__wrapped__ = real

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.real in CREATION:
            return handlers.ac_create(self.real, *args, **kwargs)
        if is_tracing() and _hidden_in_sequences((*args, *kwargs.values())):
            if self.real in REDUCTION_TO_OP:
                args = tuple(_as_array(a) for a in args)  # NumPy's np.asarray of each
            elif self.real in FUNCTIONS:
                return call_function(self.real, FUNCTIONS[self.real], args, kwargs)
            else:
                what = f"np.{getattr(self.real, '__name__', '')} of traced numbers in a list"
                raise TraceBreak(TraceReason.NOT_SUPPORTED, what)
        return self.real(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # ``np.sum.__name__``
        return getattr(self.real, name)

    def __eq__(self, other: Any) -> bool:  # ``{np.sum: 1}.get(fn)`` of the user's own np.sum
        return self.real == (other.real if isinstance(other, Routed) else other)

    def __hash__(self) -> int:
        return hash(self.real)

    def __repr__(self) -> str:
        return f"<{self.real.__name__}, as traced code calls it>"


def _as_array(value: Any) -> Any:
    """A reduction's operand as NumPy takes it, ``np.asarray(a)``: a Python
    list or tuple of traced numbers (``np.max([lo, hi])``) is a traced array."""
    if isinstance(value, (list, tuple)) and _holds(value):
        return handlers.as_operand(value)
    return value


def _hidden_in_sequences(values: tuple) -> bool:
    """Whether traced values reach a NumPy function only inside Python lists or tuples
    (``np.dot(t, t)`` of a tuple argument): NumPy finds nothing to dispatch on and makes an
    object array of them, folded with Python's ``+`` and ``>`` (a Python number out where
    NumPy returns ``np.float64``, NaN lost), so the function's handler takes the call."""
    if any(isinstance(v, _TRACED) for v in values):
        return False
    return any(isinstance(v, (list, tuple)) and _holds(v) for v in values)


def _holds(sequence: list | tuple) -> bool:
    return any(
        _holds(v) if isinstance(v, (list, tuple)) else isinstance(v, _TRACED) for v in sequence
    )


class ScalarRouted(Routed):
    """``math.erf`` and friends as traced code calls them: an inlined helper's
    ``math.erf(d / math.sqrt(2.0))`` on a loop value asked it for ``float()`` (a break, so
    the whole loop ran as Python), where the region's own lines route it (``__ac_scalar``)."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return scalars.ac_scalar(self.real, *args) if not kwargs else self.real(*args, **kwargs)


def routed(module: types.ModuleType, value: Any, seen: Any) -> Any:
    """What traced code calls for ``value``, an attribute of ``module`` that the trace sees as
    ``seen``: NumPy's functions (not its types and ufuncs) and ``math``'s go to the tracer."""
    if module.__name__ == "math" and seen is value and scalar_function(value):
        return _scalar_routed(value)
    if module.__name__ != "numpy" or not isinstance(value, Callable) or seen is not value:
        return seen  # (a refused function, ``np.save``, stays refused)
    if isinstance(value, (type, np.ufunc)):  # a ufunc's traced values dispatch in NumPy
        return seen
    return _routed(value)


@functools.cache
def _routed(real: Callable) -> Routed:  # one per function: ``np.zeros is np.zeros`` holds
    return Routed(real)


def scalar_function(value: Any) -> bool:
    """Whether ``value`` is one of ``math``'s functions the tracer computes on loop values.
    Only those: ``float``, ``int``, ``min`` read as values (``DTYPE = float``, then
    ``dtype=DTYPE`` or ``isinstance(v, DTYPE)``) must stay themselves."""
    return (
        type(value) is types.BuiltinFunctionType
        and value.__module__ == "math"
        and (value in scalars.HANDLERS)
    )


@functools.cache
def _scalar_routed(real: Callable) -> ScalarRouted:  # one per function, as _routed
    return ScalarRouted(real)
