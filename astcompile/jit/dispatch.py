"""``__ac_call``: calls from a compiled function's eager code to user functions.

A user function called from a graph break is compiled on its own (its graph-able parts still
run compiled), as torch.compile does for the frames it reaches. Disabled functions and our own
compiled wrappers are called as they are: they already know what to do.
"""

from __future__ import annotations

import ast
import functools
import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile import registry
from astcompile.frontend.source import carried_sources
from astcompile.jit.warn_twin import plain_of
from astcompile.runtime import forksafe

if TYPE_CHECKING:
    from astcompile.jit.protocols import Owner

_lock = forksafe.module_lock(__name__)
_local = threading.local()
_implicit: dict[tuple[int, str], Any] = {}  # (id(fn), backend) -> its compiled function

_LIBRARY_PREFIXES = ("numpy", "astcompile", "builtins")


def _cache() -> dict:
    cache = getattr(_local, "cache", None)
    return _implicit if cache is None else cache  # an empty fresh cache is the one to use


class fresh_cache:
    """Within the block, implicitly compiled callees are compiled anew (``explain`` uses it)."""

    def __enter__(self) -> fresh_cache:
        self._previous = getattr(_local, "cache", None)
        _local.cache = {}
        return self

    def __exit__(self, *exc: object) -> None:
        _local.cache = self._previous


def is_user_function(fn: Any) -> bool:
    if not isinstance(fn, types.FunctionType):
        return False
    module = getattr(fn, "__module__", "") or ""
    if module.split(".")[0] in _LIBRARY_PREFIXES:
        return False
    code = fn.__code__  # a function a pickle brought with its source is the user's too
    return not code.co_filename.startswith("<") or code in carried_sources


def compiled_callee(fn: types.FunctionType, owner: Owner) -> Callable[..., Any]:
    """``fn`` compiled the way ``owner`` is (once per function and backend)."""
    cache = _cache()
    key = (id(fn), owner.backend_name)
    entry = cache.get(key)
    if entry is None or entry.fn is not fn:
        with _lock:
            entry = cache.get(key)
            if entry is None or entry.fn is not fn:
                entry = cache[key] = owner.compile_callee(fn)
    return entry


def call_from_compiled(owner: Owner, callee: Any, args: tuple, kwargs: dict) -> Any:
    if is_itself(callee, owner):  # recursion on the compiled path stays on it, not counted
        return recurse(owner, args, kwargs)
    cache = _cache()
    route = cache.get((_ROUTE, id(callee), owner.backend_name))
    if route is not None and route[0] is callee and _still(route, callee):
        return route[3](*args, **kwargs)
    if registry.is_compiled(callee) or registry.disable_mode(callee) is not None:
        return callee(*args, **kwargs)
    if not isinstance(callee, _PLAIN):
        return _call_object(owner, callee, args, kwargs)
    if isinstance(callee, types.MethodType) and is_user_function(callee.__func__):
        return compiled_callee(callee.__func__, owner)(callee.__self__, *args, **kwargs)
    if is_user_function(callee) and not registry.is_allowed_in_graph(callee):
        target = compiled_callee(callee, owner)
        route = (callee, callee.__code__, registry.version, target)
        cache[(_ROUTE, id(callee), owner.backend_name)] = route
        return target(*args, **kwargs)
    return callee(*args, **kwargs)


#: A user function's route, once decided, is kept beside its compiled function: the checks
#: above cost 3-10 us a call, more than a small helper's whole compiled call (a Halton point
#: generator calls its radical inverse 150,000 times from a Python loop).
_ROUTE = "route"


def _still(route: tuple, callee: types.FunctionType) -> bool:
    """Whether what the route of ``callee`` was decided on is unchanged: its code (a user
    function only while its code is a file's) and the marks of ``allow_in_graph`` and
    ``disallow_in_graph``."""
    return route[1] is callee.__code__ and route[2] == registry.version


#: Levels of a recursion that run on the compiled path; deeper ones call the user's function.
#: A compiled level costs 6 Python frames of the recursion limit where the plain one costs 1:
#: a memoised recursion 200 levels deep raised RecursionError compiled and ran plain.
COMPILED_LEVELS = 8


def recurse(owner: Owner, args: tuple, kwargs: dict) -> Any:
    """A call of ``owner`` from its own compiled path: compiled for the first levels (array
    work at each level of a divide and conquer runs compiled), then the user's function with
    ``owner`` on its plain path, so that calls of its own name (the compiled object, where it
    decorates the function) pass through no frame of ours either."""
    depth = getattr(_local, "depth", 0)
    if depth > COMPILED_LEVELS:  # inside the plain levels, reached another way than by name
        return plain_of(owner.fn)(*args, **kwargs)
    _local.depth = depth + 1
    try:
        return owner.recurse(args, kwargs, compiled=depth < COMPILED_LEVELS)
    finally:
        _local.depth = depth


_PLAIN = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, type)
_CALL = "__ac_call"  # what the rewrite routes calls through (the compiler's rewrite.CALL)


def is_itself(callee: Any, owner: Owner) -> bool:
    """Whether a call of ``callee`` is a call of ``owner``: the compiled function, or the
    user's function it compiles (``fast = astcompile.compile(fib)`` leaves the name ``fib``
    meaning the plain one, whose answer is the compiled one's)."""
    return callee is owner or callee is owner.fn


def calls_of_itself(source: str, owner: Owner) -> int | None:
    """How many calls the eager code of ``owner``'s rewrite (``source``) routes, when every one
    is a call of ``owner`` itself by a name that means it now; None when one calls anything
    else. With no regions, such a rewrite runs the user's statements exactly: its compiled path
    is the plain path with our frames added."""
    count = 0
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == _CALL:
            callee = node.args[0] if node.args else None
            if not isinstance(callee, ast.Name):
                return None
            if not is_itself(getattr(owner.fn, "__globals__", {}).get(callee.id), owner):
                return None
            count += 1
    return count


def _call_object(owner: Owner, callee: Any, args: tuple, kwargs: dict) -> Any:
    """A partial (its function, with its arguments read now) or a callable object (its
    class's ``__call__``, bound to it), compiled as a function called by name would be."""
    from astcompile.frontend.methods import called_object

    if type(callee) is functools.partial:
        args, kwargs = (*callee.args, *args), {**callee.keywords, **kwargs}
        return call_from_compiled(owner, callee.func, args, kwargs)
    call = called_object(callee)
    if call is not None and not registry.is_allowed_in_graph(callee):
        return call_from_compiled(owner, types.MethodType(call, callee), args, kwargs)
    return callee(*args, **kwargs)


def reset() -> None:
    with _lock:
        _implicit.clear()
