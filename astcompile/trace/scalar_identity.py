"""The scalar calls whose result is their argument itself, in CPython.

``float(f)`` of a float is ``f`` (``int(i)`` of an int is ``i``), and ``max(s, s)`` is its
first argument: the plain program returns that object, so a region returns it too (an
argument's, the one object the caller passed) rather than a new number of the same value, and
specialises nothing on its value. Called by ``ac_scalar`` (trace/scalars.py) before anything
else.
"""

from __future__ import annotations

from collections.abc import Callable

from astcompile.trace.sym_numbers import SymScalar


def returns_itself(func: Callable, args: tuple) -> bool:
    """Whether ``func(*args)`` is ``args[0]`` itself for the traced numbers in ``args``."""
    first = args[0] if args else None
    if not isinstance(first, SymScalar) and not getattr(first, "is_scalar", False):
        return False  # a concrete value, an array: as written
    if func is float or func is int:
        return len(args) == 1 and isinstance(first, SymScalar) and type(first.hint) is func
    return (func is max or func is min) and len(args) > 1 and all(a is first for a in args)
