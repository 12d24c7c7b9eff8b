"""``fullgraph=True`` at decoration: the breaks the source shows raise before any call.

Our edge over bytecode tracers: a break visible in the text is an error where the function is
defined, not on its first call. A call of a name not yet defined (a function defined later in
the module) may still resolve by the first call, so that break waits for it.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from astcompile.errors import GraphBreakError, NoSourceError
from astcompile.frontend.breaks import BreakReason, GraphBreak, no_source
from astcompile.jit import warm_rewrite

if TYPE_CHECKING:
    from astcompile.jit.function import CompiledFunction


def breaks_in_source(compiled: CompiledFunction) -> None:
    """Raise GraphBreakError for the breaks certain from the source alone. A cached rewrite
    without breaks skips the analysis (the first call checks it again)."""
    cached = warm_rewrite.load_rewrite(compiled.fn, compiled.all_eager, validate=False)
    if cached is not None and not cached.breaks:
        return
    from astcompile import pipeline  # the compiler: only now, for a fullgraph function

    try:
        analysis = pipeline.analyse(compiled).analysis
    except NoSourceError as exc:  # nothing of it can be a graph: GB001
        raise GraphBreakError(compiled.name, [no_source(compiled.fn, compiled.name, exc)]) from None
    certain = [b for b in analysis.breaks if not _maybe_unresolved(compiled, b)]
    if certain:
        raise GraphBreakError(compiled.name, certain)


def _maybe_unresolved(compiled: CompiledFunction, graph_break: GraphBreak) -> bool:
    """A call of a name the function cannot see yet: defined later, it may resolve."""
    if graph_break.reason not in (BreakReason.UNKNOWN_CALL, BreakReason.STAR_ARGS):
        return False
    names = (
        set(compiled.globals)
        | set(getattr(compiled.fn.__code__, "co_freevars", ()))
        | set(dir(builtins))
    )
    root = graph_break.detail.split("(")[0].split(".")[0].strip("`' ")
    return root not in names
