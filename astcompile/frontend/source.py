"""Step 1: find the source of a function and map it back to the user's file.

Every later stage (diagnostics, rewritten code, tracebacks) promises the user's own line numbers,
so this module keeps the exact offset of the ``def`` line and the columns removed by dedenting.
Decorators are dropped here because the rewritten function must not re-apply them.
"""

from __future__ import annotations

import ast
import inspect
import io
import linecache
import os
import tokenize
import types
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from astcompile.errors import NoSourceError


@dataclass(frozen=True)
class FunctionSource:
    """The ``def`` statement of one function, dedented, decorators removed.

    Line ``k`` of ``text`` is line ``def_line + k - 1`` of ``filename``; add ``indent`` to a column
    of ``text`` to get the file's column.
    """

    fn: Callable | None
    name: str
    filename: str
    def_line: int
    text: str
    indent: int


#: Sources that came with a pickle (``frontend/carried.py``), by code object: a function that
#: was read in another process has no file here to read. Each was checked against its code.
carried_sources: weakref.WeakKeyDictionary[types.CodeType, FunctionSource] = (
    weakref.WeakKeyDictionary()
)


def function_source(fn: Callable) -> FunctionSource:
    """The source of ``fn`` (through bound, static and class methods), or NoSourceError.

    A ``functools.wraps`` wrapper is a function of its own: its source is the wrapper's, never
    the ``__wrapped__`` function's, or compiling it would skip the wrapper's code.
    """
    raw = _unwrap(fn)
    label = getattr(raw, "__qualname__", repr(raw))
    if not isinstance(raw, types.FunctionType):
        raise NoSourceError(f"{label} is not a Python function (got {type(raw).__name__})")
    carried = carried_sources.get(raw.__code__)
    if carried is not None:
        return carried
    try:
        lines, first_line = _def_lines(raw)
    except (OSError, TypeError) as exc:
        raise NoSourceError(f"cannot read the source of {label}: {exc}") from None
    filename = inspect.getsourcefile(raw) or raw.__code__.co_filename
    if not filename.startswith("<"):
        filename = os.path.abspath(filename)
    return _from_block(lines, max(first_line, 1), filename, raw, raw.__code__.co_name)


def _def_lines(raw: types.FunctionType) -> tuple[list[str], int]:
    """``inspect.getsourcelines(raw.__code__)`` (the function itself would be unwrapped),
    read through linecache with the function's own globals: given a code object, ``inspect``
    first looks for its module among all loaded modules, a ``realpath`` of each file, which
    was most of a first call's ``source`` stage. The rarer cases stay ``inspect``'s."""
    code = raw.__code__
    first = code.co_firstlineno
    linecache.checkcache(code.co_filename)
    lines = linecache.getlines(code.co_filename, raw.__globals__)
    if not 0 < first <= len(lines):
        return inspect.getsourcelines(code)
    return inspect.getblock(lines[first - 1 :]), first


def sources_in_module(text: str, filename: str, methods: bool = True) -> list[FunctionSource]:
    """Every top-level function (and method, if asked) in a module's text, for static checks.

    The CLI and the static resolver use this: ``fn`` is None because nothing was executed.
    """
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    found = []
    for node in tree.body:
        defs = [node] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        if methods and isinstance(node, ast.ClassDef):
            defs = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for fdef in defs:
            block = lines[fdef.lineno - 1 : fdef.end_lineno]
            found.append(_from_block(block, fdef.lineno, filename, None, fdef.name))
    return found


def _unwrap(fn: object) -> object:
    """Follow bound methods and static/class methods to the function (``__wrapped__`` is not
    followed: a decorator's wrapper runs code of its own)."""
    while isinstance(fn, (types.MethodType, staticmethod, classmethod)):
        fn = fn.__func__
    return fn


def _from_block(
    lines: list[str], first_line: int, filename: str, fn: Callable | None, name: str
) -> FunctionSource:
    """Dedent a def block (decorators included or not) and cut it at the ``def`` line."""
    first = lines[0]
    indent = len(first) - len(first.lstrip(" \t"))
    dedented = dedent_lines(lines, indent) if indent else list(lines)
    try:
        tree = ast.parse("".join(dedented))
    except SyntaxError as exc:
        raise NoSourceError(f"cannot parse the source of {name} in {filename}: {exc}") from None
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise NoSourceError(f"{name} in {filename} is not defined by a def statement")
    offset = fdef.lineno - 1  # the ``def`` line, after the decorators
    text = "".join(dedented[offset:])
    return FunctionSource(fn, name, filename, first_line + offset, text, indent)


def dedent_lines(lines: list[str], indent: int) -> list[str]:
    """Remove ``indent`` leading columns from each line, except inside multi-line strings.

    ``textwrap.dedent`` would change the contents of a triple-quoted string, and a compiled
    function must compute exactly what the original did.
    """
    keep = _string_interior_lines(lines)
    out = []
    for number, line in enumerate(lines, start=1):
        head = line[:indent]
        strip = number not in keep and not head.strip(" \t")
        out.append(line[indent:] if strip else line)
    return out


def _string_interior_lines(lines: list[str]) -> set[int]:
    """1-based numbers of lines that lie inside a multi-line string token after its first line."""
    interior: set[int] = set()
    readline = io.StringIO("".join(lines)).readline
    try:
        for tok in tokenize.generate_tokens(readline):
            if tok.end[0] > tok.start[0] and tok.type not in (tokenize.NL, tokenize.NEWLINE):
                interior.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return interior
