"""Find the compiled functions of a module statically, with the options they are compiled with.

Nothing is imported or executed: the module's ``ast`` is read, and names are qualified through
its imports (the static resolver's ``qualify``, frontend/static_resolve.py), so every
spelling of ``astcompile.compile`` is found::

    import astcompile as ac                      from astcompile import compile as jit

    @ac.compile(fullgraph=True)                  @jit
    def f(x): ...                                def g(x): ...

    fast_h = ac.compile(h, backend="c")          slow_k = jit(fullgraph=True)(k)

Top-level functions and the methods of top-level classes are found; functions defined inside
other functions or under ``if``/``try`` at module level are not (they have no static source).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from astcompile.frontend import tables as T
from astcompile.frontend.analysis import FunctionAnalysis
from astcompile.frontend.source import FunctionSource, sources_in_module
from astcompile.frontend.static_resolve import StaticResolver

#: How a target was found: decorated, wrapped by a module-level call, or reached from one.
DECORATOR, CALL, CALLEE = "decorator", "call", "callee"

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Target:
    """One function that runs compiled, with the keyword arguments of its ``compile`` call.

    ``keywords`` holds each argument's source text (``(("fullgraph", "True"),)``); ``option``
    evaluates one when it is a literal. ``how`` is ``"callee"`` for a user function that is not
    compiled explicitly but is called, with graph breaks, from compiled code: at run time it is
    compiled on its own, so its breaks are real too.
    """

    name: str  # "f", or "Model.forward" for a method
    source: FunctionSource
    how: str
    keywords: tuple[tuple[str, str], ...] = ()

    @property
    def line(self) -> int:
        return self.source.def_line

    @property
    def fullgraph(self) -> bool:
        return self.option("fullgraph", False) is True

    def option(self, name: str, default: object = None) -> object:
        """The literal value of keyword ``name``; ``default`` when absent or not a literal."""
        for key, text in self.keywords:
            if key == name:
                try:
                    return ast.literal_eval(text)
                except (ValueError, SyntaxError):
                    return default
        return default


def module_functions(tree: ast.Module, text: str, filename: str) -> dict[str, FunctionSource]:
    """The source of every top-level function and method, by name (``"Model.forward"``)."""
    by_line = {s.def_line: s for s in sources_in_module(text, filename, methods=True)}
    return {
        name: by_line[node.lineno] for name, node in _named_defs(tree) if node.lineno in by_line
    }


def compiled_targets(
    tree: ast.Module, functions: dict[str, FunctionSource], qualify: Callable[[str], str]
) -> list[Target]:
    """Every function of the module compiled by a decorator or a module-level call, in order.

    ``functions`` comes from :func:`module_functions`; ``qualify`` maps a dotted name through
    the module's imports (``ac.compile`` -> ``astcompile.compile``).
    """
    found: dict[str, Target] = {}
    for name, node in _named_defs(tree):
        keywords = _decorator_keywords(node, qualify)
        if keywords is not None and name in functions:
            found[name] = Target(name, functions[name], DECORATOR, keywords)
    for name, keywords in _compile_calls(tree, qualify):
        if name in functions and name not in found:
            found[name] = Target(name, functions[name], CALL, keywords)
    return sorted(found.values(), key=lambda t: t.line)


def breaking_callees(analysis: FunctionAnalysis, resolver: StaticResolver) -> list[str]:
    """Top-level user functions with breaks that ``analysis``'s function calls, in order."""
    resolved = [resolver.aliases.get(n, n) for n in analysis.breaking_calls]
    return [n for n in resolved if n in resolver.functions]


def _named_defs(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef]]:
    for node in tree.body:
        if isinstance(node, _DEFS):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for inner in node.body:
                if isinstance(inner, _DEFS):
                    yield f"{node.name}.{inner.name}", inner


def _decorator_keywords(node: ast.FunctionDef, qualify: Callable[[str], str]):
    """The keywords of an ``astcompile.compile`` decorator, or None when there is none."""
    for decorator in node.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        if _is_compile(call.func if call else decorator, qualify):
            return _keywords(call) if call else ()
    return None


def _compile_calls(tree: ast.Module, qualify: Callable[[str], str]):
    """``(name, keywords)`` for ``compile(f, ...)`` and ``compile(...)(f)`` at module level."""
    for statement in tree.body:
        if isinstance(statement, (*_DEFS, ast.ClassDef)):
            continue
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            first = node.args[0]
            if not isinstance(first, ast.Name):
                continue
            if _is_compile(node.func, qualify):
                yield first.id, _keywords(node)
            elif isinstance(node.func, ast.Call) and _is_compile(node.func.func, qualify):
                yield first.id, _keywords(node.func)


def _is_compile(expr: ast.expr, qualify: Callable[[str], str]) -> bool:
    """``ac.compile`` or ``jit``: a name or attribute chain that qualifies to the API."""
    if not isinstance(expr, (ast.Name, ast.Attribute)):
        return False
    return qualify(ast.unparse(expr)) == T.API_COMPILE  # ``f().compile`` never qualifies


def _keywords(call: ast.Call) -> tuple[tuple[str, str], ...]:
    return tuple((k.arg, ast.unparse(k.value)) for k in call.keywords if k.arg)
