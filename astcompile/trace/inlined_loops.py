"""What a region's trace calls for a user function with loops that it inlines.

The frontend rewrote such a callee as if it were compiled on its own (frontend/callee_loops.py):
its ``def`` with region calls for statements, and each region's body with its loops lowered to
the tracer's ``__ac_for``/``__ac_while``. The trace calls that rewrite in the callee's place,
cloned like the callee (trace/reads.py), so its globals, closure cells and defaults are read at
every call of the region, under the callee's own path; each region call reaches a clone of
its body, whose loops then become loops of the caller's graph.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile.frontend.callee_loops import lowered_callee
from astcompile.jit.structured_calls import STRUCTURED_CALLS
from astcompile.runtime.reads import Path
from astcompile.trace.context import TraceBreak, user_location

if TYPE_CHECKING:
    from astcompile.frontend.rewrite import RewriteResult
    from astcompile.trace.reads import ReadRecorder


def lowered_clone(
    recorder: ReadRecorder, path: Path, fn: types.FunctionType, rewrite: RewriteResult
) -> types.FunctionType:
    """The clone of ``fn``'s rewrite the trace calls for ``fn`` read at ``path``, with its
    defaults as ``fn`` has them now."""
    lowered = lowered_callee(fn, rewrite, STRUCTURED_CALLS)
    made = lowered.function
    entry = types.FunctionType(
        made.__code__, made.__globals__, fn.__name__, fn.__defaults__, made.__closure__
    )
    entry.__kwdefaults__ = fn.__kwdefaults__
    entry.__qualname__, entry.__module__ = fn.__qualname__, fn.__module__
    clone = recorder.function(entry, path, cell_index(entry, fn))
    cells = dict(zip(clone.__code__.co_freevars, clone.__closure__ or ()))
    for name, body in lowered.bodies.items():
        cells[name].cell_contents = recorder.function(body, path, cell_index(body, fn))
    inlined = _calling(clone)
    recorder.stands_for(fn, inlined, path)
    return inlined


def _calling(clone: types.FunctionType) -> types.FunctionType:
    """``clone``, whose trace breaks are the caller's at the line that called it: the
    region then keeps that statement in Python (jit/failures.py, ``keep_loops_around``)
    rather than every loop it has, and the break is still reported at the callee's own line
    (``origin``). Without this a callee's break sent the caller's other loops to Python (a
    200,000-step loop beside a call of a helper whose trace failed ran plain)."""

    def inlined(*args: Any, **kwargs: Any) -> Any:
        try:
            return clone(*args, **kwargs)
        except TraceBreak as exc:
            exc.loc = user_location()
            raise

    inlined.__name__, inlined.__qualname__ = clone.__name__, clone.__qualname__
    inlined.__dict__ = clone.__dict__
    return inlined


def cell_index(made: Callable, root: Callable) -> dict[str, int]:
    """Where each closure cell of a function made from ``root``'s source sits in ``root``
    (-1: one of the compiler's own)."""
    own = root.__code__.co_freevars
    return {name: own.index(name) if name in own else -1 for name in made.__code__.co_freevars}
