"""Name resolution for analysis: what does a call's callee refer to, and may it join a graph?

Two resolvers share the rules in :mod:`tables`: :class:`RuntimeResolver` looks names up in a live
function's globals, closure cells and builtins (getattr only on modules and classes, so no user
property runs); :class:`StaticResolver` reads a module's imports and top-level definitions, for
the CLI, which must not import the user's code. User functions are analysed recursively (with a
depth limit and a cycle guard) to decide whether a call can be inlined into a region.
"""

from __future__ import annotations

import builtins
import os
import sysconfig
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from astcompile import registry
from astcompile.errors import NoSourceError
from astcompile.frontend import tables as T
from astcompile.frontend.analysis import CallKind, analyze_function
from astcompile.frontend.exprs import dotted_name
from astcompile.frontend.lookup import MISSING, InstanceMethod, fingerprint, lookup
from astcompile.frontend.source import FunctionSource, function_source, sources_in_module
from astcompile.frontend.tree import ModuleTree

MAX_INLINE_DEPTH = 8


@dataclass
class _Shared:
    """State shared by a resolver and the resolvers of the callees it analyses."""

    verdicts: dict[Any, CallKind] = field(default_factory=dict)
    active: set[Any] = field(default_factory=set)
    sources: dict[str, FunctionSource] | None = None  # static: the module's functions by name
    tree: ModuleTree | None = None  # static: the module, parsed once
    #: runtime: (path of callee names from the root, dotted name, fingerprint) of each look-up,
    #: so the rewrite cache can re-check them without analysing again.
    lookups: list[tuple[tuple[str, ...], str, str | None]] = field(default_factory=list)


def _method_call(kind: CallKind) -> tuple[CallKind, None]:
    return kind, None


def _classify_unnamed(func: cst.BaseExpression) -> tuple[CallKind, None]:
    """``(a + b).sum()`` is a method of a computed value; ``f()(x)`` is unknown."""
    return _method_call(CallKind.GRAPHABLE if isinstance(func, cst.Attribute) else CallKind.UNKNOWN)


def _user_verdict(shared: _Shared, key: Any, depth: int, analyse: Callable[[], bool]) -> CallKind:
    """INLINE_USER when the callee's source is fully graph-able; recursion never inlines."""
    if key in shared.active or depth >= MAX_INLINE_DEPTH:
        return CallKind.BREAK_USER
    if key not in shared.verdicts:
        shared.active.add(key)
        try:
            inline = analyse()
        except NoSourceError:
            inline = False
        finally:
            shared.active.discard(key)
        shared.verdicts[key] = CallKind.INLINE_USER if inline else CallKind.BREAK_USER
    return shared.verdicts[key]


# -- runtime -----------------------------------------------------------------------------------


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
        if registry.is_compiled(obj) and hasattr(obj, "__wrapped__"):
            return self.classify_object(obj.__wrapped__)
        for predicate, kind in _OBJECT_RULES:
            if predicate(obj):
                return kind
        function = getattr(obj, "__func__", obj)  # a classmethod bound to its class
        if not isinstance(function, types.FunctionType):
            return CallKind.UNKNOWN
        if hasattr(function, "__wrapped__"):
            return CallKind.BREAK_USER  # a decorator's wrapper: inlining would skip the wrapper
        module = function.__module__ or ""
        if module.split(".")[0] in ("numpy", "astcompile") or _is_library(function):
            return CallKind.UNKNOWN
        return _user_verdict(self._shared, function, self._depth, lambda: self._inline(function))

    def _inline(self, function: types.FunctionType) -> bool:
        src = function_source(function)
        resolver = RuntimeResolver(
            function,
            _shared=self._shared,
            _depth=self._depth + 1,
            _path=(*self._path, self._dotted),
        )
        return analyze_function(src, resolver).fully_graphable

    def _lookup(self, dotted: str) -> Any:
        obj = lookup(self.fn, dotted)
        self._shared.lookups.append((self._path, dotted, fingerprint(obj)))
        return obj


# -- static ------------------------------------------------------------------------------------


_DECORATOR_KINDS = {
    T.API_DISABLE: CallKind.DISABLED,
    T.API_DISALLOW: CallKind.DISALLOWED,
    T.API_ALLOW: CallKind.GRAPHABLE,
}


class StaticResolver:
    """Resolves callees from a module's text alone: imports, top-level defs, module-level marks.

    A caller that already parsed the module passes ``tree`` (and the top-level functions'
    ``sources``), so the callees it analyses are not parsed again.
    """

    def __init__(
        self,
        module: cst.Module,
        filename: str,
        *,
        tree: ModuleTree | None = None,
        sources: dict[str, FunctionSource] | None = None,
        _shared: _Shared | None = None,
        _depth: int = 0,
    ) -> None:
        self.module, self.filename = module, filename
        self._shared = _shared or _Shared(tree=tree, sources=sources)
        self._depth = _depth
        self.imports: dict[str, str] = {}
        self.functions: dict[str, cst.FunctionDef] = {}
        self.other_globals: set[str] = set()
        self.disallowed: set[str] = set()
        self.marks: dict[str, CallKind] = {}  # user functions marked at module level
        self.aliases: dict[str, str] = {}  # ``fast = astcompile.compile(f)``: fast -> f
        for statement in module.body:
            self._module_statement(statement)

    def classify_call(
        self, func: cst.BaseExpression, dotted: str | None
    ) -> tuple[CallKind, object | None]:
        if dotted is None:
            return _classify_unnamed(func)
        dotted = self.aliases.get(dotted, dotted)
        if dotted in self.marks:
            return self.marks[dotted], None
        root = dotted.split(".")[0]
        if root in self.imports:
            return self._classify_qualified(self.qualify(dotted)), None
        if root in self.functions:
            if "." in dotted:
                return CallKind.UNKNOWN, None
            return self._classify_function(root), None
        if root in self.other_globals:
            return CallKind.UNKNOWN, None
        if dotted in T.SIDE_EFFECT_BUILTINS:
            return CallKind.SIDE_EFFECT, None
        kind = CallKind.GRAPHABLE if dotted in T.SAFE_BUILTINS else CallKind.UNKNOWN
        return kind, None

    def qualify(self, dotted: str) -> str:
        """``np.linalg.svd`` -> ``numpy.linalg.svd`` through the module's import aliases."""
        root, _, rest = dotted.partition(".")
        base = self.imports.get(root, root)
        return f"{base}.{rest}" if rest else base

    def _classify_qualified(self, qualified: str) -> CallKind:
        if qualified == T.API_GRAPH_BREAK:
            return CallKind.GRAPH_BREAK
        if qualified in self.disallowed:
            return CallKind.DISALLOWED
        top = qualified.split(".")[0]
        if top == "numpy":
            side_effect = T.numpy_call_has_side_effects(qualified)
            return CallKind.SIDE_EFFECT if side_effect else CallKind.GRAPHABLE
        return CallKind.GRAPHABLE if top in T.PURE_MODULES else CallKind.UNKNOWN

    def _classify_function(self, name: str) -> CallKind:
        fdef = self.functions[name]
        kinds = [self._decorator_kind(d.decorator) for d in fdef.decorators]
        for kind in (CallKind.DISABLED, CallKind.DISALLOWED, CallKind.GRAPHABLE, CallKind.UNKNOWN):
            if kind in kinds:
                return kind
        return _user_verdict(self._shared, name, self._depth, lambda: self._inline(name))

    def _decorator_kind(self, decorator: cst.BaseExpression) -> CallKind | None:
        """None for ``astcompile.compile`` (transparent); UNKNOWN for any other wrapper."""
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        dotted = dotted_name(target)
        qualified = self.qualify(dotted) if dotted else ""
        if qualified == T.API_COMPILE:
            return None
        return _DECORATOR_KINDS.get(qualified, CallKind.UNKNOWN)

    @property
    def tree(self) -> ModuleTree:
        """The module parsed once, shared with the resolvers of the callees it analyses."""
        if self._shared.tree is None:
            self._shared.tree = ModuleTree(self.module)
        return self._shared.tree

    def _inline(self, name: str) -> bool:
        src = self._source(name)
        resolver = StaticResolver(
            self.module, self.filename, _shared=self._shared, _depth=self._depth + 1
        )
        return analyze_function(src, resolver, self.tree).fully_graphable

    def _source(self, name: str) -> FunctionSource:
        if self._shared.sources is None:
            found = sources_in_module(self.tree.text, self.filename, methods=False)
            self._shared.sources = {s.name: s for s in found}
        return self._shared.sources[name]

    def _module_statement(self, statement: cst.CSTNode) -> None:
        """Record what one top-level statement binds or marks (``if``/``try`` bodies included)."""
        if isinstance(statement, cst.FunctionDef):
            self.functions[statement.name.value] = statement
        elif isinstance(statement, cst.ClassDef):
            self.other_globals.add(statement.name.value)
        elif isinstance(statement, (cst.If, cst.Try)):
            for block in [statement.body, *_extra_blocks(statement)]:
                if isinstance(block, cst.IndentedBlock):
                    for inner in block.body:
                        self._module_statement(inner)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self._module_small(small)

    def _module_small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Import):
            for alias in small.names:
                full = dotted_name(alias.name) or ""
                local = alias.asname.name.value if alias.asname else full.split(".")[0]
                self.imports[local] = full if alias.asname else local
        elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
            base = dotted_name(small.module) if small.module and not small.relative else None
            for alias in small.names:
                name = dotted_name(alias.name) or ""
                local = alias.asname.name.value if alias.asname else name
                if base:
                    self.imports[local] = f"{base}.{name}"
                else:
                    self.other_globals.add(local)
        elif isinstance(small, cst.Assign):
            for target in small.targets:
                if isinstance(target.target, cst.Name):
                    self.other_globals.add(target.target.value)
                    if isinstance(small.value, cst.Call):
                        self._module_wrap(target.target.value, small.value)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self._module_mark(small.value)

    def _module_wrap(self, bound: str, call: cst.Call) -> None:
        """``g = astcompile.disable(f)`` (also ``disable(recursive=False)(f)``), ``compile``,
        ``allow_in_graph`` or ``disallow_in_graph`` of a user function ``f``, bound to ``g``."""
        self._module_mark(call)
        api_call = call.func if isinstance(call.func, cst.Call) else call
        dotted = dotted_name(api_call.func)
        api = self.qualify(dotted) if dotted else ""
        args = [dotted_name(a.value) for a in call.args]
        if len(args) != 1 or args[0] not in self.functions:
            return
        if api == T.API_DISABLE:
            self.marks[bound] = CallKind.DISABLED
        elif api in (T.API_COMPILE, T.API_ALLOW, T.API_DISALLOW):
            self.aliases[bound] = args[0]

    def _module_mark(self, call: cst.Call) -> None:
        """``astcompile.disallow_in_graph(np.linalg.svd)`` at module level marks that op."""
        dotted = dotted_name(call.func)
        api = self.qualify(dotted) if dotted else ""
        args = [dotted_name(a.value) for a in call.args]
        if api not in (T.API_DISALLOW, T.API_ALLOW) or len(args) != 1 or not args[0]:
            return
        if args[0] in self.functions:  # a user function: marks the function object itself
            kind = CallKind.DISALLOWED if api == T.API_DISALLOW else CallKind.GRAPHABLE
            self.marks[args[0]] = kind
            return
        qualified = self.qualify(args[0]) if args[0].split(".")[0] in self.imports else args[0]
        if api == T.API_DISALLOW:
            self.disallowed.add(qualified)
        else:
            self.disallowed.discard(qualified)


def _extra_blocks(statement: cst.If | cst.Try) -> list[cst.BaseSuite]:
    if isinstance(statement, cst.If):
        return [statement.orelse.body] if isinstance(statement.orelse, cst.Else) else []
    blocks = [h.body for h in statement.handlers]
    return blocks + ([statement.orelse.body] if statement.orelse else [])
