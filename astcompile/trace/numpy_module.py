"""The ``numpy`` module as traced code sees it: its array-creation functions go to the tracer.

Region bodies call ``np.zeros``/``np.array`` through ``__ac_create`` (frontend/lowering.py):
NumPy cannot hand a call with no array argument, or a list of traced scalars, to the tracer.
A user function that a region calls runs unrewritten on traced values (it is inlined), so the
right-hand side of an ODE, ``return np.array([a * x - b * x * y, d * x * y - c * y])``, broke
the region ("conversion to a concrete array"). A traced read of ``numpy`` (a global or closure
cell that is the module) therefore sees this view of it: the creation functions route through
``ac_create``, every other attribute is NumPy's own object.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any


class Routed:
    """``np.array`` and friends as traced code calls them; leaving a region, it is NumPy's."""

    __slots__ = ("__wrapped__", "real")

    def __init__(self, real: Callable) -> None:
        self.real = self.__wrapped__ = real

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from astcompile.trace.loops import ac_create

        return ac_create(self.real, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self.real.__name__}, as traced code calls it>"


class TracedNumpy:
    """``numpy`` with ``array``, ``zeros``, ``arange``... calling the tracer's creation."""

    __slots__ = ("_numpy", "_routed")

    def __init__(self, numpy: types.ModuleType) -> None:
        self._numpy = numpy
        self._routed: dict[str, Routed] = {}

    def __getattr__(self, name: str) -> Any:
        from astcompile.trace.numpy_api import CREATION

        real = getattr(self._numpy, name)
        if not callable(real) or real not in CREATION:
            return real
        routed = self._routed.get(name)
        if routed is None:
            routed = self._routed[name] = Routed(real)
        return routed

    def __repr__(self) -> str:
        return f"<numpy, as traced code sees it: {self._numpy!r}>"


def untraced(value: Any) -> Any:
    """What a value that leaves a region is to the user: NumPy's own module or function."""
    if isinstance(value, TracedNumpy):
        return value._numpy
    return value.real if isinstance(value, Routed) else value


def seen_while_tracing(module: types.ModuleType) -> Any:
    """What traced code gets for ``module``: numpy's tracing view, any other module itself."""
    return TracedNumpy(module) if module.__name__ == "numpy" else module
