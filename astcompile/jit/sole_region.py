"""A compiled function that is one region: its calls may go straight to the region's guards.

``f(x)`` whose rewrite is just ``(__ac_ret,) = __ac_region_0(x); return __ac_ret`` need not run
the rewritten function at all: ``CompiledFunction`` calls the region's generated guard function
directly (0.5 us less on a small call) when the call is exactly the region's arguments.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from astcompile import config
from astcompile.jit import telemetry
from astcompile.runtime import errstate

if TYPE_CHECKING:
    from astcompile.jit.regions import Region


def is_sole_region(source: str, region: str) -> bool:
    """Whether the rewritten function is exactly ``(__ac_ret,) = region(p0, p1, ...)`` and
    ``return __ac_ret`` over its own plain positional parameters, in order: a call with just
    those arguments may then call the region directly (0.5 us less on a small call)."""
    body = ast.parse(source).body
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or body[0].decorator_list:
        return False
    params = body[0].args
    if params.posonlyargs or params.vararg or params.kwonlyargs or params.kwarg or params.defaults:
        return False
    expected = f"__ac_ret, = {region}({', '.join(a.arg for a in params.args)})\nreturn __ac_ret"
    return "\n".join(ast.unparse(s) for s in body[0].body) == expected


def alone(sole: Region, args: tuple) -> bool:
    """Whether ``args`` may go straight to the sole region's guards: the region's arity, and
    neither explain, verify nor NumPy's error state needs the full path."""
    return (
        len(args) == len(sole.names)
        and not (telemetry.recording or config.verify)
        and errstate.quiet()
    )
