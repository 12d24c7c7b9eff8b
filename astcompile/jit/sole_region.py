"""A compiled function that is one region: its calls may go straight to the region's guards.

``f(x)`` whose rewrite is just ``(__ac_ret,) = __ac_region_0(x); return __ac_ret`` need not run
the rewritten function at all: ``CompiledFunction`` calls the region's generated guard function
directly (0.5 us less on a small call) when the call is exactly the region's arguments.

Where the C-level call path is loaded, even the lines of ``CompiledFunction.__call__`` before
those guards (the tiering countdown, the error state, the flags: 0.2-0.4 us as Python) run in C
(``runtime/fastcall_sole.c``), reading the same state; the calls they do not end come to
:func:`finish`, which ``__call__`` shares.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from astcompile import config
from astcompile.ir.checks import RunPlain
from astcompile.jit import telemetry
from astcompile.jit.entries import MISS
from astcompile.jit.fp_errors import after_error
from astcompile.jit.regions import after_compiled
from astcompile.runtime import errstate, fpflags

if TYPE_CHECKING:
    from astcompile.jit.function import CompiledFunction
    from astcompile.jit.regions import Region


def is_sole_region(source: str, region: str) -> bool:
    """Whether the rewritten function is exactly ``(__ac_ret,) = region(p0, p1, ...)`` and
    ``return __ac_ret`` over all its own parameters, in order (positional-only, positional,
    keyword-only; defaults or not, but no ``*args`` or ``**kwargs``), after its docstring if
    any (one sent every call of a documented function down the full path: 2 us more): a call
    may then call the region directly on its arguments bound as the function binds them
    (0.5 us less on a small call)."""
    body = ast.parse(source).body
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or body[0].decorator_list:
        return False
    params = body[0].args
    if params.vararg or params.kwarg:
        return False
    names = [a.arg for a in (*params.posonlyargs, *params.args, *params.kwonlyargs)]
    expected = f"__ac_ret, = {region}({', '.join(names)})\nreturn __ac_ret"
    statements = body[0].body
    if ast.get_docstring(body[0], clean=False) is not None:  # a docstring runs nothing
        statements = statements[1:]
    return "\n".join(ast.unparse(s) for s in statements) == expected


def alone(sole: Region, args: tuple) -> bool:
    """Whether ``args`` may go straight to the sole region's guards: all its arguments, by
    position, and neither explain, verify nor NumPy's error state needs the full path."""
    return (
        len(args) == sole.positional == len(sole.names)
        and not (telemetry.recording or config.verify)
        and errstate.quiet()
    )


def finish(
    owner: CompiledFunction, sole: Region, args: tuple, result: Any, as_made: tuple | None = None
) -> Any:
    """A sole region's call that its guards did not end: a miss (the rewritten function, whose
    code may be new, on the call ``as_made``, ``(args, kwargs)``, where its arguments were
    bound to the region's), raised floating-point flags (NumPy's warnings or errors), or
    ``None`` where the compiled code declined with RunPlain (the region's own statements), or
    the exception its guards raised after a raised flag (:func:`after_raise`)."""
    if isinstance(result, Exception):
        return after_raise(sole, args, result)
    if result is not None:
        try:
            if result is MISS:
                return owner._full_call(*(as_made or (args, {})))
            return after_compiled(sole, args, result)[0]
        except RunPlain:
            pass
    return sole.run_body(args)[0]


def declined(error: Exception) -> Exception | None:
    """What ``CompiledFunction.__call__`` hands :func:`finish` for an error its sole region's
    guards raised, in the except block: None for RunPlain (the statements run), the error
    itself where a floating-point flag is up (:func:`after_raise`); any other is re-raised."""
    if isinstance(error, RunPlain):
        return None
    if fpflags.raised():
        return error
    raise  # noqa: PLE0704 - the error being handled, in the caller's except block


def after_raise(sole: Region, args: tuple, error: Exception) -> Any:
    """The guards raised ``error`` while a floating-point flag was up: NumPy may warn before
    it (``a.sum() // k, 7 // k`` with ``k == 0``: "divide by zero", then ZeroDivisionError),
    so :func:`~astcompile.jit.fp_errors.after_error` decides, in the except block it needs."""
    try:
        raise error
    except Exception:  # noqa: BLE001 - re-raised there unless the statements return
        return after_error(sole, args)[0]


def in_c(module: ModuleType, compiled_call: Callable) -> None:
    """Give the C call path what a sole call reads, once per process: the state
    ``CompiledFunction.__call__`` reads, by the same names, so that it is read afresh each call,
    and ``compiled_call`` (``CompiledFunction._compiled_call``), which its own stands for."""
    state = getattr(errstate.current, "__self__", None)  # NumPy's context variable
    module.sole_context(
        MISS,
        RunPlain,
        vars(telemetry),
        vars(config),
        vars(errstate),
        state if type(state).__name__ == "ContextVar" else None,
        bool(fpflags.KINDS),  # else the flags are not looked at (runtime/fpflags.py)
        compiled_call,
    )
