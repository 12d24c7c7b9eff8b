"""The ``numpy`` module as traced code sees it: its array-creation functions go to the tracer.

Region bodies call ``np.zeros``/``np.array`` through ``__ac_create`` (frontend/lowering.py):
NumPy cannot hand a call with no array argument, or a list of traced scalars, to the tracer.
A user function that a region calls runs unrewritten on traced values (it is inlined), so the
right-hand side of an ODE, ``return np.array([a * x - b * x * y, d * x * y - c * y])``, broke
the region ("conversion to a concrete array"). A traced read of ``numpy`` (a global or closure
cell that is the module) therefore sees this view of it: the creation functions route through
``ac_create``, every other attribute is NumPy's own object.

Every library module is seen through such a view (:class:`TracedModule`), so that a function
the callee analysis would refuse a call by name (``np.random.rand``, ``time.perf_counter``)
is refused however traced code reached it: through a local alias (``r = np.random``), an
attribute (``self.clock = time``) or a submodule.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from astcompile.trace.stand_ins import Refused, refused_or_itself


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


class TracedModule:
    """A library module as traced code sees it: its submodules seen the same way, and each
    function the callee analysis would not let a call by name reach (``np.random.rand``,
    ``time.time``: frontend/callees.py) a trace break when called, however the code reached
    it (``r = np.random; r.rand(3)``, ``self.clock = time``)."""

    __slots__ = ("_module", "_seen")

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module
        self._seen: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        seen = self._seen.get(name)
        if seen is None:
            seen = self._seen[name] = self._attribute(name, getattr(self._module, name))
        return seen

    def _attribute(self, name: str, real: Any) -> Any:
        if isinstance(real, types.ModuleType):
            return seen_while_tracing(real)
        if isinstance(real, type):
            return real
        return refused_or_itself(real, f"{self._module.__name__}.{name}")

    def __repr__(self) -> str:
        return f"<{self._module.__name__}, as traced code sees it>"


class TracedNumpy(TracedModule):
    """``numpy`` with ``array``, ``zeros``, ``arange``... calling the tracer's creation."""

    __slots__ = ()

    def _attribute(self, name: str, real: Any) -> Any:
        from astcompile.trace.numpy_api import CREATION

        if callable(real) and not isinstance(real, type) and real in CREATION:
            return Routed(real)
        return super()._attribute(name, real)


def untraced(value: Any) -> Any:
    """What a value that leaves a region is to the user: the module or function itself."""
    if isinstance(value, TracedModule):
        return value._module
    return value.__wrapped__ if isinstance(value, (Routed, Refused)) else value


def seen_while_tracing(module: types.ModuleType) -> Any:
    """What traced code gets for a library ``module``: numpy's tracing view, or the view that
    keeps its side-effect functions from running (the compiler's own modules: themselves)."""
    if module.__name__.split(".")[0] == "astcompile":
        return module
    return TracedNumpy(module) if module.__name__.split(".")[0] == "numpy" else TracedModule(module)
