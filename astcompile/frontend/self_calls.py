"""The plain twin of a function that calls itself by name: its recursion without our object.

A compiled function that measuring sent to the plain path still stands where the user's
function stood, under its name. The user's recursive call ``det(minor)`` reads that name and
calls our object, which calls the user's function: a C-level call per level of recursion
(about 13 ns through ``Switch``), where the plain program makes the interpreter's cheapest
call, a Python function calling a Python function, run in the same loop. So the plain route
of such a function is its twin: the user's statements compiled from the same text, at the same
lines, with the same globals, closure and defaults, whose calls of that name still read the
name as the user's do and, while it still means this compiled function, call the twin itself::

    total += m[0][j] * det(minor)                                        # the user's
    total += m[0][j] * (__ac_twin if det is __ac_wrapper else det)(minor)  # the twin's

A name rebound to something else is called as it is, at once. The name must mean the same
thing everywhere in the function (never assigned or bound in it), or there is no twin.
"""

from __future__ import annotations

import ast
import sys
import types
from collections.abc import Callable
from typing import Any

from astcompile.errors import NoSourceError
from astcompile.frontend.code_match import import_rewrite
from astcompile.frontend.materialize import build_function
from astcompile.frontend.source import function_source

TWIN = "__ac_twin"  # the twin, in a closure cell of its own
WRAPPER = "__ac_wrapper"  # the compiled function the name means while the twin stands in


def plain_twin(fn: Callable, wrapper: object) -> types.FunctionType | None:
    """The twin of ``fn`` for ``wrapper`` (its compiled function), or None where ``fn`` does
    not call ``wrapper`` by a name, is a method, or has no source that compiles to its code."""
    names = names_of(fn, wrapper)
    parsed = None if not names or _is_method(fn) else user_tree(fn)
    if parsed is None:
        return None
    tree, fdef, filename = parsed
    if not isinstance(fdef, ast.FunctionDef) or names & _bound(fdef):
        return None
    calls = _CallsOfItself(names)
    calls.visit(tree)
    if not calls.rewritten:
        return None  # the name is read but never called: no call to send to the twin
    extra = {WRAPPER: wrapper, TWIN: None}
    twin = build_function(tree, fdef.name, fn, extra, filename)
    twin.__closure__[twin.__code__.co_freevars.index(TWIN)].cell_contents = twin
    return twin


def user_tree(fn: Callable) -> tuple[ast.Module, ast.stmt, str] | None:
    """The tree of ``fn``'s ``def`` at the lines and columns of its file, as its module's
    import compiled it (pytest's puts imports before it), the ``def`` and the file's name;
    None where ``fn`` has no source."""
    try:
        src = function_source(fn)
    except NoSourceError:
        return None
    tree = ast.parse(src.text, filename=src.filename)
    fdef = tree.body[0]
    import_rewrite(sys.modules.get(fn.__module__ or ""), fn.__code__)(tree, src.text)
    _AtUserLines(src.def_line - 1, src.indent).visit(tree)
    return tree, fdef, src.filename


def names_of(fn: Any, wrapper: object) -> frozenset[str]:
    """The global or closure names ``fn``'s code (nested code included) reads that mean
    ``wrapper`` now."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return frozenset()
    names = {n for c in _codes(code) for n in c.co_names if fn.__globals__.get(n) is wrapper}
    cells = zip(code.co_freevars, fn.__closure__ or ())
    names |= {n for n, cell in cells if _content(cell) is wrapper}
    return frozenset(names)


def _codes(code: types.CodeType) -> list[types.CodeType]:
    nested = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return [code, *(inner for c in nested for inner in _codes(c))]


def _content(cell: types.CellType) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _is_method(fn: Any) -> bool:
    """Whether ``fn`` was defined in a class: its private names are mangled with the class's
    name, and the twin is not compiled in one."""
    parts = fn.__code__.co_qualname.split(".")
    return len(parts) > 1 and parts[-2] != "<locals>"


#: Nodes that bind their ``name`` (a nested ``def``, ``except E as name``, ``case [*name]``).
_NAMED = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.ExceptHandler,
    ast.MatchAs,
    ast.MatchStar,
)


def _bound(fdef: ast.FunctionDef) -> set[str]:
    """Names bound anywhere in ``fdef`` (as its own or a nested scope's): there a name of
    ``fdef``'s may not mean what it means outside."""
    bound: set[str] = set()
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, _NAMED) and node.name and node is not fdef:
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
    return bound


class _AtUserLines(ast.NodeVisitor):
    """Moves a tree parsed from the dedented ``def`` to the lines and columns of the file, so
    that tracebacks through the twin point where they point through the user's function."""

    def __init__(self, lines: int, columns: int) -> None:
        self.lines, self.columns = lines, columns

    def generic_visit(self, node: ast.AST) -> None:
        if hasattr(node, "lineno"):
            node.lineno += self.lines
            node.col_offset += self.columns
            if node.end_lineno is not None and node.end_col_offset is not None:
                node.end_lineno += self.lines
                node.end_col_offset += self.columns
        super().generic_visit(node)


class _CallsOfItself(ast.NodeTransformer):
    """``name(...)`` becomes ``(__ac_twin if name is __ac_wrapper else name)(...)``."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.rewritten = 0

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id in self.names:
            test = ast.Compare(_name(func.id, func), [ast.Is()], [_name(WRAPPER, func)])
            node.func = ast.copy_location(ast.IfExp(test, _name(TWIN, func), func), func)
            ast.fix_missing_locations(node.func)
            self.rewritten += 1
        return node


def _name(name: str, at: ast.AST) -> ast.Name:
    return ast.copy_location(ast.Name(name, ast.Load()), at)
