"""Whole NumPy programs of the kinds scientists write, run plain and compiled.

Each module ``NAME.py`` here (names not starting with ``_``) is one program: the function
``NAME``, plain NumPy with no astcompile in it, and ``setup(small=False)``, which returns the
function's arguments as a tuple, the same on every call (seeded). ``small=True`` gives inputs
that run in well under a millisecond, for the correctness test. ``python -m bench.programs``
runs each program plain and compiled, checks both give the same answer and times them.
"""

from __future__ import annotations

import importlib
import pkgutil
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Program:
    name: str
    fn: Callable[..., Any]
    setup: Callable[[bool], tuple]
    summary: str  # the first line of the module's docstring


def names() -> list[str]:
    """Every program in this folder, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load(name: str) -> Program:
    module = importlib.import_module(f"{__name__}.{name}")
    summary = (module.__doc__ or "").strip().splitlines()[0]
    return Program(name, getattr(module, name), module.setup, summary)


def decorated(fn: Callable[..., Any], wrap: Callable[[Callable], Callable]) -> Callable[..., Any]:
    """``fn`` as a decorator would leave it: a copy of ``fn`` whose own name, in a copy of its
    globals, is the wrapped copy, so that a recursive call goes through the wrapper as it does
    under ``@astcompile.compile`` or ``@numba.njit`` (the module's own function stays plain)."""
    if fn.__name__ not in fn.__code__.co_names:
        return wrap(fn)
    namespace = dict(fn.__globals__)
    clone = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__module__, clone.__qualname__ = fn.__module__, fn.__qualname__
    namespace[fn.__name__] = wrapped = wrap(clone)
    return wrapped
