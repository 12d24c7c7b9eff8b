"""What a dotted name in a function's body refers to at run time, and a cheap fingerprint of it.

Shared by the resolver (which classifies the object it finds) and the rewrite cache (which
re-checks, without libcst, that every name the analysis looked up still resolves to the same
kind of thing). No libcst here: a warm start imports this module, not the analysis.
"""

from __future__ import annotations

import builtins
import hashlib
import marshal
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from astcompile import registry

MISSING = object()


@dataclass(frozen=True)
class InstanceMethod:
    """A method looked up on an instance: we never getattr on instances (properties run code)."""

    of_array: bool


def lookup(fn: Callable, dotted: str) -> Any:
    """``dotted`` in ``fn``'s closure cells, globals and builtins; getattr only on modules,
    classes and ufuncs (their methods: ``np.add.outer``)."""
    root, *attrs = dotted.split(".")
    obj = _root(fn, root)
    for attr in attrs:
        if obj is MISSING:
            break
        if not isinstance(obj, (types.ModuleType, type, np.ufunc)):  # np.add.outer
            return InstanceMethod(isinstance(obj, (np.ndarray, np.generic)))
        try:
            obj = getattr(obj, attr)
        except Exception:
            return MISSING
    return obj


def _root(fn: Callable, name: str) -> Any:
    code = fn.__code__
    if name in code.co_freevars:
        try:
            return fn.__closure__[code.co_freevars.index(name)].cell_contents
        except ValueError:  # the cell is still empty
            return MISSING
    if name in fn.__globals__:
        return fn.__globals__[name]
    scope = getattr(fn, "__builtins__", builtins.__dict__)
    scope = vars(scope) if isinstance(scope, types.ModuleType) else scope
    return scope.get(name, MISSING)


def code_hash(fn: types.FunctionType) -> str:
    """A hash of ``fn``'s compiled code (any edit but a comment changes it) and its defaults.

    The file name is left out, so a package moved after ``astcompile build`` still matches.
    """
    digest = hashlib.sha256(marshal.dumps(_without_filename(fn.__code__)))
    digest.update(repr((fn.__defaults__, fn.__kwdefaults__)).encode())
    return digest.hexdigest()[:24]


def code_digest(code: types.CodeType) -> str:
    """A hash of a code object alone (the file name left out, as in :func:`code_hash`)."""
    return hashlib.sha256(marshal.dumps(_without_filename(code))).hexdigest()[:24]


def _without_filename(code: types.CodeType) -> types.CodeType:
    consts = tuple(
        _without_filename(c) if isinstance(c, types.CodeType) else c for c in code.co_consts
    )
    return code.replace(co_filename="", co_consts=consts)


def _marks(obj: Any) -> str:
    """The process-wide marks the resolver's rules read (disable, allow/disallow, graph_break)."""
    flags = (
        registry.is_disallowed(obj),
        registry.is_allowed_in_graph(obj),
        getattr(obj, "__astcompile_graph_break__", False) is True,
    )
    return f"{registry.disable_mode(obj)}" + "".join(str(int(f)) for f in flags)


def _name_of(obj: Any) -> str:
    module = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "")
    return f"{module}.{getattr(obj, '__qualname__', getattr(obj, '__name__', ''))}"


def fingerprint(obj: Any) -> str | None:
    """What the analysis of a call depends on, as a short string; None when not cacheable.

    A function with closure cells is not cacheable: what it computes depends on cell values
    that no fingerprint of its code captures.
    """
    if obj is MISSING:
        return "missing"
    if isinstance(obj, InstanceMethod):
        return f"method:{obj.of_array}"
    marks = _marks(obj)
    if registry.disable_mode(obj) is not None:
        return f"disabled:{marks}:{fingerprint(getattr(obj, '__wrapped__', None))}"
    if registry.is_compiled(obj):
        inner = fingerprint(getattr(obj, "__wrapped__", None))
        return None if inner is None else f"compiled:{marks}:{inner}"
    if isinstance(obj, types.FunctionType):
        if obj.__closure__:
            return None
        return f"function:{marks}:{_name_of(obj)}:{code_hash(obj)}"
    if isinstance(obj, types.ModuleType):
        return f"module:{obj.__name__}"
    if callable(obj):
        builtin = getattr(builtins, getattr(obj, "__name__", ""), None) is obj
        return f"{type(obj).__name__}:{marks}:{_name_of(obj)}:{builtin}"
    return f"value:{marks}:{_name_of(type(obj))}"
