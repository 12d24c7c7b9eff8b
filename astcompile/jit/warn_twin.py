"""The user's function, as frames of ours run it plainly, where it may give ``warn`` a level.

Measuring times the plain path, calls wait on the plain path while compiling, recursion past
its compiled levels and a function with no regions run the user's function: called from our
frames, its ``warnings.warn("late", stacklevel=2)`` would name one of them, not the caller's
line. Such a function is run as its twin there: its text compiled again at its lines, with the
same globals, closure and defaults, whose calls that may give a level count in the user's
frames, and whose helpers that may run as their twins (frontend/warn_calls.py). Any other
function is itself, at the cost of one look-up. A function whose ``__code__`` was swapped has
its twin made again.
"""

from __future__ import annotations

import types
import weakref
from collections.abc import Callable
from typing import Any

from astcompile.frontend.warn_calls import warn_helpers
from astcompile.jit.freshness import with_defaults
from astcompile.runtime import user_frames

#: function -> (its code when the twin was made, the twin or None)
_twins: weakref.WeakKeyDictionary[Any, tuple[Any, Any]] = weakref.WeakKeyDictionary()


def plain_of(fn: Callable) -> Callable:
    """What a frame of ours calls to run ``fn`` as written."""
    if type(fn) is not types.FunctionType:
        return fn
    code = fn.__code__
    made = _twins.get(fn)
    if made is None or made[0] is not code:
        made = _twins[fn] = (code, _twin(fn) if _may_warn(fn) else None)
    return fn if made[1] is None else with_defaults(fn, made[1])


def plain_caller(fn: Callable) -> Callable:
    """``fn``, or where it has a twin, a function that calls the twin of its code at each call
    (a path that holds what it calls: jit/waiting.py, the plain path's class). The twin is
    looked up again only when ``fn``'s code or defaults are not the twin's (the look-up cost
    1-2 us a call there, against 0.2 us for the call)."""
    twin = plain_of(fn)
    if twin is fn:
        return fn
    made = [fn.__code__, twin]

    def twin_call(*args: Any, **kwargs: Any) -> Any:
        twin = made[1]
        if (
            made[0] is not fn.__code__
            or twin.__defaults__ is not fn.__defaults__
            or twin.__kwdefaults__ is not fn.__kwdefaults__
        ):
            made[0], made[1] = fn.__code__, plain_of(fn)
        return made[1](*args, **kwargs)

    return twin_call


def _may_warn(fn: types.FunctionType) -> bool:
    """Whether ``fn`` reads a name ``warn``, or calls a function of the user's that does
    (its own names: never its nested functions', which would cost a walk)."""
    return "warn" in fn.__code__.co_names or bool(warn_helpers(fn))


def _twin(fn: Callable) -> types.FunctionType | None:
    import ast

    from astcompile.frontend.materialize import build_function
    from astcompile.frontend.self_calls import user_tree
    from astcompile.frontend.warn_calls import WARN, WARNER, may_give_a_level

    parsed = user_tree(fn)
    if parsed is None:
        return None
    tree, fdef, filename = parsed
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    helpers = warn_helpers(fn)
    calls = [n for n in ast.walk(fdef) if isinstance(n, ast.Call)]
    routed = (isinstance(n.func, ast.Name) and n.func.id in helpers for n in calls)
    if not any(routed) and not any(may_give_a_level(n) for n in calls):
        return None
    routers = {WARN: user_frames.warn, WARNER: user_frames.warn}
    return build_function(tree, fdef.name, fn, routers, filename)


user_frames.plain_of = plain_of  # a helper called through user_frames.warn runs as its twin
