"""The static resolver: what a call's callee refers to, read from the module's text alone.

The CLI (``astcompile check``, the pre-commit hook) must not import the user's code, so this
resolver reads a module's imports, top-level definitions, module-level marks and its classes'
methods, and gives each call the verdict the runtime resolver (frontend/resolve.py) would give
it from the same rules (:mod:`tables`) and the same recursive analysis of user functions.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import libcst as cst

from astcompile.frontend import tables as T
from astcompile.frontend.analysis import CallKind, FunctionAnalysis, analyze_function
from astcompile.frontend.exprs import dotted_name
from astcompile.frontend.methods import class_methods
from astcompile.frontend.resolve import _classify_unnamed, _Shared, _user_verdict
from astcompile.frontend.source import FunctionSource, sources_in_module
from astcompile.frontend.tree import ModuleTree

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

    def classify_method(self, src: FunctionSource, attr: str) -> CallKind | None:
        """``self.attr(...)`` in a method of a top-level class: judged by that class's own def
        of ``attr``; None when there is none (an inherited or instance attribute)."""
        if self._shared.methods is None:
            self._shared.methods = class_methods(ast.parse(self.tree.text))
        cls, methods = self._shared.methods.get(src.def_line, ("", {}))
        line = methods.get(attr)
        fdef = self.tree.function_at(line) if line is not None else None
        if fdef is None:
            return None
        return self._classify_def(f"{cls}.{attr}", fdef, lambda: self._method_source(line))

    def _classify_function(self, name: str) -> CallKind:
        return self._classify_def(name, self.functions[name], lambda: self._source(name))

    def _classify_def(
        self, key: str, fdef: cst.FunctionDef, source: Callable[[], FunctionSource]
    ) -> CallKind:
        kinds = [self._decorator_kind(d.decorator) for d in fdef.decorators]
        for kind in (CallKind.DISABLED, CallKind.DISALLOWED, CallKind.GRAPHABLE, CallKind.UNKNOWN):
            if kind in kinds:
                return kind
        return _user_verdict(self._shared, key, self._depth, lambda: self._inline(source()))

    def _decorator_kind(self, decorator: cst.BaseExpression) -> CallKind | None:
        """None for ``astcompile.compile``, ``staticmethod`` and ``classmethod`` (transparent);
        UNKNOWN for any other wrapper."""
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        dotted = dotted_name(target)
        qualified = self.qualify(dotted) if dotted else ""
        if qualified in (T.API_COMPILE, "staticmethod", "classmethod"):
            return None
        return _DECORATOR_KINDS.get(qualified, CallKind.UNKNOWN)

    @property
    def tree(self) -> ModuleTree:
        """The module parsed once, shared with the resolvers of the callees it analyses."""
        if self._shared.tree is None:
            self._shared.tree = ModuleTree(self.module)
        return self._shared.tree

    def _inline(self, src: FunctionSource) -> FunctionAnalysis:
        resolver = StaticResolver(
            self.module, self.filename, _shared=self._shared, _depth=self._depth + 1
        )
        return analyze_function(src, resolver, self.tree)

    def _source(self, name: str) -> FunctionSource:
        if self._shared.sources is None:
            found = sources_in_module(self.tree.text, self.filename, methods=False)
            self._shared.sources = {s.name: s for s in found}
        return self._shared.sources[name]

    def _method_source(self, def_line: int) -> FunctionSource:
        found = sources_in_module(self.tree.text, self.filename, methods=True)
        return next(s for s in found if s.def_line == def_line)

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
