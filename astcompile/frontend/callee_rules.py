"""The rules that say what a callee object is, without reading any source.

A callee is NumPy, a safe builtin, marked by the user (``allow_in_graph``, ``disable``), a
function with side effects, or a user function whose analysis decides (frontend/resolve.py,
frontend/callees.py). The trace asks these rules of every callable it reads, so this module
imports no parser: a warm process whose regions trace never pays for libcst (issue 26), which
it imports only when a user function's source has to be analysed.
"""

from __future__ import annotations

import builtins
import dis
import itertools
import os
import sysconfig
import types
from collections.abc import Callable
from enum import Enum
from typing import Any

from astcompile import registry
from astcompile.frontend import tables as T
from astcompile.frontend.methods import called_object


class CallKind(Enum):
    GRAPHABLE = "graphable"  # NumPy, math, safe builtins, array methods, allow_in_graph
    INLINE_USER = "inline_user"  # user function whose whole source is graph-able
    BREAK_USER = "break_user"  # user function with breaks: compiled on its own
    DISABLED = "disabled"  # astcompile.disable'd callee
    DISALLOWED = "disallowed"  # op marked disallow_in_graph
    SIDE_EFFECT = "side_effect"  # print, open, np.random.*, ...
    GRAPH_BREAK = "graph_break"  # astcompile.graph_break()
    UNKNOWN = "unknown"  # anything else
    LOCAL_BREAK = "local_break"  # a local function that cannot be inlined (frontend/nested.py)


def _module_of(obj: Any) -> str:
    owner = getattr(obj, "__self__", None) or getattr(obj, "__objclass__", None)
    for candidate in (obj, type(obj), owner, type(owner)):
        name = getattr(candidate, "__module__", None)
        if isinstance(name, str) and name not in ("builtins", "numbers"):
            return name
    return ""


def _builtin_ids(names: frozenset[str]) -> frozenset[int]:
    return frozenset(id(getattr(builtins, n)) for n in names if hasattr(builtins, n))


_SAFE_IDS = _builtin_ids(T.SAFE_BUILTINS)
_SIDE_EFFECT_IDS = _builtin_ids(T.SIDE_EFFECT_BUILTINS)


def _is_numpy(obj: Any) -> bool:
    return _module_of(obj).split(".")[0] == "numpy"


def _numpy_side_effect(obj: Any) -> bool:
    name = getattr(obj, "__name__", "")
    return _is_numpy(obj) and T.numpy_call_has_side_effects(f"{_module_of(obj)}.{name}")


def _pure_module(obj: Any) -> bool:
    return _module_of(obj).lstrip("_") in T.PURE_MODULES  # operator.add lives in _operator


_LIBRARY_DIRS = tuple(
    os.path.realpath(path) + os.sep
    for key in ("stdlib", "platstdlib", "purelib", "platlib")
    if (path := sysconfig.get_paths().get(key))
)


def _is_library(function: types.FunctionType) -> bool:
    """Installed packages and the standard library are not the user's code: never analysed."""
    filename = os.path.realpath(function.__code__.co_filename)
    return filename.startswith(_LIBRARY_DIRS)


#: Ordered rules for a resolved callee; the first predicate that holds decides.
_OBJECT_RULES: tuple[tuple[Callable[[Any], bool], CallKind], ...] = (
    (lambda o: getattr(o, T.GRAPH_BREAK_ATTR, False) is True, CallKind.GRAPH_BREAK),
    (lambda o: registry.disable_mode(o) is not None, CallKind.DISABLED),
    (registry.is_disallowed, CallKind.DISALLOWED),
    (registry.is_allowed_in_graph, CallKind.GRAPHABLE),
    (lambda o: id(o) in _SIDE_EFFECT_IDS, CallKind.SIDE_EFFECT),
    (lambda o: id(o) in _SAFE_IDS, CallKind.GRAPHABLE),
    (_numpy_side_effect, CallKind.SIDE_EFFECT),
    (_is_numpy, CallKind.GRAPHABLE),
    (_pure_module, CallKind.GRAPHABLE),
)


def callee_of(obj: Any) -> CallKind | types.FunctionType:
    """The kind the rules give a callee, or the user function whose analysis decides it: a
    compiled wrapper counts as the function it wraps, a bound method as its function, a
    partial as its function, a callable object as its class's ``__call__``."""
    if registry.is_compiled(obj) and hasattr(obj, "__wrapped__"):
        return callee_of(obj.__wrapped__)
    if type(obj) is types.MethodType:  # marks (allow_in_graph, disable) are on the function
        return callee_of(obj.__func__)
    for predicate, kind in _OBJECT_RULES:
        if predicate(obj):
            return kind
    inner = called_object(obj)
    if inner is not None:
        return callee_of(inner)
    function = getattr(obj, "__func__", obj)  # a bound method, a classmethod bound to its class
    if not isinstance(function, types.FunctionType):
        return CallKind.UNKNOWN
    if hasattr(function, "__wrapped__"):
        return CallKind.BREAK_USER  # a decorator's wrapper: inlining would skip the wrapper
    module = function.__module__ or ""
    if module.split(".")[0] in ("numpy", "astcompile") or _is_library(function):
        return CallKind.UNKNOWN
    if reads_caller_frame(function.__code__):
        return CallKind.UNKNOWN  # called as written: no frame of ours between it and its caller
    return function


def reads_caller_frame(code: types.CodeType) -> bool:
    """Whether ``code`` looks at its caller's frame (T.CALLER_FRAME_NAMES; ``inspect.stack``;
    a ``stacklevel`` given by keyword, or an int of 2 or more beside ``warn``)."""
    names = set(code.co_names)
    if names & T.CALLER_FRAME_NAMES or {"inspect", "stack"} <= names:
        return True
    keywords = {k for c in code.co_consts if isinstance(c, tuple) for k in c if isinstance(k, str)}
    return "stacklevel" in keywords or ("warn" in names and _third_argument_level(code))


def _third_argument_level(code: types.CodeType) -> bool:
    """Whether a call of three positional arguments ends in a constant int of 2 or more
    (``warn(message, category, 2)``): any such int in the code (``x ** 2``) beside a plain
    ``warn(message)`` kept a helper from being compiled."""
    steps = list(dis.get_instructions(code))
    return any(
        a.opname == "LOAD_CONST"
        and type(a.argval) is int
        and a.argval >= 2
        and b.opname in ("PRECALL", "CALL")
        and b.arg == 3
        for a, b in itertools.pairwise(steps)
    )
