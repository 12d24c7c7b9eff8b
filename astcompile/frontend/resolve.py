"""Name resolution for analysis: what does a call's callee refer to, and may it join a graph?

Two resolvers share the rules in :mod:`tables`: :class:`RuntimeResolver` looks names up in a live
function's globals, closure cells and builtins (getattr only on modules and classes, so no user
property runs); the ``StaticResolver`` (frontend/static_resolve.py) reads a module's text, for
the CLI, which must not import the user's code. User functions are analysed recursively (with a
depth limit and a cycle guard) to decide whether a call can be inlined into a region; a method
called through ``self`` or ``cls`` is judged by its class's own function (frontend/methods.py).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from astcompile.errors import NoSourceError
from astcompile.frontend.analysis import FunctionAnalysis, analyze_function
from astcompile.frontend.breaks import GraphBreak
from astcompile.frontend.callee_loops import inlines_with_loops
from astcompile.frontend.callee_rules import CallKind, callee_of
from astcompile.frontend.lookup import MISSING, InstanceMethod, fingerprint, lookup
from astcompile.frontend.methods import owner_class_name
from astcompile.frontend.source import FunctionSource, function_source
from astcompile.frontend.tree import ModuleTree

MAX_INLINE_DEPTH = 8


@dataclass
class _Shared:
    """State shared by a resolver and the resolvers of the callees it analyses."""

    verdicts: dict[Any, CallKind] = field(default_factory=dict)
    #: the first break of each callee analysed (its own file and line), for the reports of
    #: callers that reach it without a name the analysis saw (trace time: frontend/callees.py)
    first_breaks: dict[Any, GraphBreak] = field(default_factory=dict)
    active: set[Any] = field(default_factory=set)
    #: callees inlined with their loops (frontend/callee_loops.py)
    looping: set[Any] = field(default_factory=set)
    sources: dict[str, FunctionSource] | None = None  # static: the module's functions by name
    tree: ModuleTree | None = None  # static: the module, parsed once
    #: static: each method's class and that class's methods (frontend/methods.py)
    methods: dict[int, tuple[str, dict[str, int]]] | None = None
    #: runtime: (path of callee names from the root, dotted name, fingerprint) of each look-up,
    #: so the rewrite cache can re-check them without analysing again.
    lookups: list[tuple[tuple[str, ...], str, str | None]] = field(default_factory=list)


def _method_call(kind: CallKind) -> tuple[CallKind, None]:
    return kind, None


def _classify_unnamed(func: cst.BaseExpression) -> tuple[CallKind, None]:
    """``(a + b).sum()`` is a method of a computed value; ``f()(x)`` is unknown."""
    return _method_call(CallKind.GRAPHABLE if isinstance(func, cst.Attribute) else CallKind.UNKNOWN)


def _user_verdict(
    shared: _Shared, key: Any, depth: int, analyse: Callable[[], FunctionAnalysis]
) -> CallKind:
    """INLINE_USER when the callee's source is fully graph-able, or graph-able with loops a
    region of the caller can run natively (frontend/callee_loops.py); recursion never
    inlines."""
    if key in shared.active or depth >= MAX_INLINE_DEPTH:
        return CallKind.BREAK_USER
    if key not in shared.verdicts:
        shared.active.add(key)
        try:
            analysis = analyse()
            inline = analysis.fully_graphable or inlines_with_loops(analysis)
            if inline and not analysis.fully_graphable:
                shared.looping.add(key)
            if analysis.breaks:
                shared.first_breaks[key] = analysis.breaks[0]
        except NoSourceError:
            inline = False
        finally:
            shared.active.discard(key)
        shared.verdicts[key] = CallKind.INLINE_USER if inline else CallKind.BREAK_USER
    return shared.verdicts[key]


# -- runtime -----------------------------------------------------------------------------------


class RuntimeResolver:
    """Resolves callees against a live function's globals, closure cells and builtins."""

    def __init__(
        self,
        fn: Callable,
        *,
        _shared: _Shared | None = None,
        _depth: int = 0,
        _path: tuple[str, ...] = (),
    ) -> None:
        self.fn = fn
        self._shared = _shared or _Shared(active={fn})
        self._depth = _depth
        self._path = _path
        self._dotted = ""  # the callee name being classified, for the look-ups of its analysis

    @property
    def lookups(self) -> list[tuple[tuple[str, ...], str, str | None]]:
        return self._shared.lookups

    def classify_call(
        self, func: cst.BaseExpression, dotted: str | None
    ) -> tuple[CallKind, object | None]:
        if dotted is None:
            return _classify_unnamed(func)
        obj = self._lookup(dotted)
        self._dotted = dotted
        if obj is MISSING:
            return CallKind.UNKNOWN, None
        if isinstance(obj, InstanceMethod):
            return _method_call(CallKind.GRAPHABLE if obj.of_array else CallKind.UNKNOWN)
        return self.classify_object(obj), obj

    def classify_object(self, obj: Any) -> CallKind:
        """The kind of a resolved callee (a compiled wrapper counts as the function it wraps)."""
        found = callee_of(obj)
        if isinstance(found, CallKind):
            return found
        return _user_verdict(self._shared, found, self._depth, lambda: self._inline(found))

    def inlines_loops(self, obj: Any) -> bool:
        """Whether ``obj``, a callee this resolver judged, is inlined with its loops."""
        return callee_of(obj) in self._shared.looping

    def classify_method(self, src: FunctionSource, attr: str) -> CallKind | None:
        """``self.attr(...)`` (or ``cls.attr``) in a method: judged by the class's own
        attribute, looked up as ``Class.attr`` (recorded like any look-up); None when the
        function is no method of a class its globals name, or the class has no such method
        (an instance attribute: the trace judges what it holds)."""
        owner = owner_class_name(self.fn)
        if owner is None:
            return None
        dotted = f"{owner}.{attr}"
        obj = self._lookup(dotted)
        if obj is MISSING or isinstance(obj, type) or not callable(obj):
            return None
        self._dotted = dotted
        return self.classify_object(obj)

    def _inline(self, function: types.FunctionType) -> FunctionAnalysis:
        src = function_source(function)
        resolver = RuntimeResolver(
            function,
            _shared=self._shared,
            _depth=self._depth + 1,
            _path=(*self._path, self._dotted),
        )
        return analyze_function(src, resolver)

    def _lookup(self, dotted: str) -> Any:
        obj = lookup(self.fn, dotted)
        self._shared.lookups.append((self._path, dotted, fingerprint(obj)))
        return obj
