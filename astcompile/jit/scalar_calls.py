"""The compiled path of a recursive function on ints and floats: one recursive C function.

A function with no region whose only routed calls are calls of itself (``fib``) has nothing
for regions to compile, and each of its levels costs a Python frame plus our call around it.
When its statements are scalar arithmetic (``targets/c/scalar_function.py``), the whole call tree
runs in C instead, one C function per tuple of argument types, built on the first call with
those types. A call this path cannot take exactly runs the user's function: keywords, other
argument types (``bool``, NumPy scalars), an int outside int64, the function's name bound to
something else now, or a C run that set ``failed`` (an int overflow, a zero divisor, more depth
than Python allows).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from astcompile import config, logs

if TYPE_CHECKING:
    import ast

    from astcompile.jit.protocols import Owner

#: The deepest recursion run in C (a C frame per level, on the caller's thread's stack).
MAX_DEPTH = 10_000
_REFUSED = None  # an entry for argument types this path does not take


def for_function(owner: Owner) -> ScalarCalls | None:
    """The C path of ``owner`` when its statements call itself and are all of the kinds C can
    run exactly (their types are checked per call's argument types); None otherwise."""
    from astcompile.targets.c import scalar_function

    fdef = scalar_function.function_tree(owner.fn)
    if fdef is None or not scalar_function.scalar_shaped(fdef):
        return None
    return ScalarCalls(owner, fdef)


class ScalarCalls:
    """Callable as the rewritten function is: C where it can answer, else the user's code."""

    __defaults__ = __kwdefaults__ = None  # set as the user's function's (freshness.py)

    def __init__(self, owner: Owner, fdef: ast.FunctionDef) -> None:
        self.owner, self.fdef = owner, fdef
        self.entries: dict[tuple[type, ...], Any] = {}  # argument types -> (ffi, C function)

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        owner = self.owner
        fn = owner.fn
        named = fn.__globals__.get(self.fdef.name)
        if kwargs or (named is not owner and named is not fn):
            return fn(*args, **kwargs)  # its recursive calls would reach something else
        key = tuple(map(type, args))
        entry = self.entries.get(key, False)
        if entry is False:
            entry = self._entry(key)
            if entry is False:  # put off by the compile budget: this wait pays towards it
                return owner.budget.wait_with(fn, args)
        if entry is _REFUSED:
            return fn(*args)
        ffi, run = entry
        failed = ffi.new("int *")
        try:
            result = run(_depth_left(), failed, *args)
        except OverflowError:  # an int outside int64
            return fn(*args)
        return fn(*args) if failed[0] else result

    def _entry(self, key: tuple[type, ...]) -> Any:
        """Build the C function for these argument types (within the compile budget)."""
        from astcompile.runtime.errors import RuntimeBuildError
        from astcompile.runtime.loader import load_library
        from astcompile.targets.c import scalar_function

        types = tuple(scalar_function.PY_TYPES.get(t) for t in key)
        if None in types or self.owner.mode == "frozen":
            self.entries[key] = _REFUSED
            return _REFUSED
        if not self.owner.budget.allows():
            return False  # runs as written this time; a later call may build it
        try:
            code = scalar_function.emit(self.fdef, types)  # type: ignore[arg-type]
            with self.owner.budget.spending():
                ffi, lib = load_library(
                    code.source,
                    code.cdecl,
                    config.cache_dir,
                    timeout=config.build_timeout or None,
                    max_bytes=config.cache_max_bytes,
                )
        except (scalar_function.Refused, RuntimeBuildError) as exc:
            logs.perf_hints.info("%s runs as written: %s", self.owner.name, exc)
            self.entries[key] = _REFUSED
            return _REFUSED
        logs.output_code.info("%s as a C function:\n%s", self.owner.name, code.source)
        entry = self.entries[key] = (ffi, getattr(lib, code.entry))
        return entry


def _depth_left() -> int:
    """How deep the C recursion may go: no deeper than Python would let the user's function
    recurse from here (past it, the C run fails and Python raises its own RecursionError)."""
    frame: Any = sys._getframe(1)
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return max(0, min(MAX_DEPTH, sys.getrecursionlimit() - depth - 5))
