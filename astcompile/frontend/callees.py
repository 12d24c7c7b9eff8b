"""The one callee analysis, for the callees the trace meets without a name the analysis saw.

A call by name (``helper(x)``, ``self.mask(x)`` in a method) is judged before any trace, by the
resolver (frontend/resolve.py). But a region also calls what it *reads*: a function stored on an
attribute (``self.fn = helper``), in a list or a dict, a callable object (``layer(x)`` in
``for layer in self.layers``), a partial, a bound method, a closure's cell. The trace sees each
such value as it reads it (trace/reads.py) and asks :func:`judge`, which gives it the verdict a
call by name would get, from the same rules and the same analysis of the callee's source: a
function whose body has side effects (``print``, ``np.random``, I/O, writes into objects) or
graph breaks is never run by the trace, so nothing of it happens once at trace time.

The analysis of a user function is remembered while its code and every name it looked up still
resolve to the same things (the rewrite cache's own check, frontend/rewrite_cache.py).
"""

from __future__ import annotations

import threading
import types
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astcompile import quiet
from astcompile.errors import NoSourceError
from astcompile.frontend.breaks import GraphBreak
from astcompile.frontend.callee_loops import native_rewrite
from astcompile.frontend.callee_rules import CallKind, callee_of
from astcompile.frontend.rewrite_cache import stale_reason
from astcompile.frontend.source import function_source

if TYPE_CHECKING:
    from astcompile.frontend.rewrite import RewriteResult

#: What the trace may run: the rest is called by the region's Python, at every call.
TRACEABLE = frozenset({CallKind.GRAPHABLE, CallKind.INLINE_USER})


@dataclass(frozen=True)
class CalleeVerdict:
    """How a call of one callee behaves in a region, and why (for the break report)."""

    kind: CallKind
    function: str = ""  # the user function judged, by its qualified name
    first_break: GraphBreak | None = None  # its first break, in its own file
    why: str = ""  # without a break to show: no source, loops
    #: a callee with loops the caller's region runs natively: its rewrite, which the trace
    #: runs in its place (frontend/callee_loops.py)
    rewrite: RewriteResult | None = field(default=None, compare=False, repr=False)

    @property
    def traceable(self) -> bool:
        return self.kind in TRACEABLE

    def describe(self) -> str:
        """What the callee is, for a message that starts with the name it was read under."""
        if self.first_break is not None:
            b = self.first_break
            return f"{self.function}(), whose line {b.line} has {b.code} {b.detail}"
        if self.function:
            return f"{self.function}(), which {self.why or 'has graph breaks'}"
        return _KIND_WORDS.get(self.kind, "not a NumPy, math or graph-able user function")


_KIND_WORDS = {
    CallKind.SIDE_EFFECT: "a function with side effects",
    CallKind.DISABLED: "marked astcompile.disable",
    CallKind.DISALLOWED: "marked disallow_in_graph",
    CallKind.GRAPH_BREAK: "astcompile.graph_break",
    CallKind.BREAK_USER: "a function with graph breaks",
}

_lock = threading.Lock()
_memo: weakref.WeakKeyDictionary[types.FunctionType, tuple[types.CodeType, list, CalleeVerdict]]
_memo = weakref.WeakKeyDictionary()


def judge(obj: Any) -> CalleeVerdict:
    """The verdict for a call of ``obj`` made by a region, however the region reached it."""
    found = callee_of(obj)
    if isinstance(found, CallKind):
        return CalleeVerdict(found)
    with _lock:
        remembered = _memo.get(found)
    if remembered is not None:
        code, lookups, verdict = remembered
        if found.__code__ is code and stale_reason(found, lookups) is None:
            return verdict
    verdict, lookups = _analyse(found)
    if all(fp is not None for _, _, fp in lookups):  # each look-up can be checked again
        with _lock:
            _memo[found] = (found.__code__, lookups, verdict)
    return verdict


def _analyse(function: types.FunctionType) -> tuple[CalleeVerdict, list]:
    """The analysis a call by name gets (frontend/resolve.py), rooted at the callee itself."""
    # The parser is imported here, not with this module: the trace judges every callable it
    # reads, and only a user function's source needs libcst (0.2-1 s), which a warm process
    # whose regions call nothing but NumPy never imports (issue 26). libcst warns as it is
    # imported, which ``-W error`` would turn into a failed call (jit/preload.py).
    with quiet.hidden():
        from astcompile.frontend.analysis import analyze_function
        from astcompile.frontend.resolve import RuntimeResolver

    name = function.__qualname__
    resolver = RuntimeResolver(function)
    try:
        analysis = analyze_function(function_source(function), resolver)
    except NoSourceError as exc:
        return CalleeVerdict(CallKind.BREAK_USER, name, why=f"cannot be read: {exc}"), []
    if analysis.fully_graphable:
        return CalleeVerdict(CallKind.INLINE_USER, name), resolver.lookups
    rewrite = native_rewrite(analysis)
    if rewrite is not None:
        return CalleeVerdict(CallKind.INLINE_USER, name, rewrite=rewrite), resolver.lookups
    first = analysis.breaks[0] if analysis.breaks else None
    why = "has a loop that runs in Python"
    return CalleeVerdict(CallKind.BREAK_USER, name, first, why), resolver.lookups
