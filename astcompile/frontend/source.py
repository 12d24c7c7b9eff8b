"""Step 1: find the source of a function and map it back to the user's file.

Every later stage (diagnostics, rewritten code, tracebacks) promises the user's own line numbers,
so this module keeps the exact offset of the ``def`` line and the columns removed by dedenting.
Decorators are dropped here because the rewritten function must not re-apply them.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import linecache
import os
import sys
import tokenize
import types
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from astcompile.errors import NoSourceError
from astcompile.frontend.code_match import compiles_to
from astcompile.frontend.spec import LAMBDA_DEF


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
    moved: bool = False  # found away from where ``fn``'s code says: the file changed above it


#: Sources that came with a pickle (``frontend/pickled_sources.py``), by code object: a function that
#: was read in another process has no file here to read. Each was checked against its code.
carried_sources: weakref.WeakKeyDictionary[types.CodeType, FunctionSource] = (
    weakref.WeakKeyDictionary()
)


def function_source(fn: Callable) -> FunctionSource:
    """The source of ``fn`` (through bound, static and class methods), or NoSourceError.

    A ``functools.wraps`` wrapper is a function of its own: its source is the wrapper's, never
    the ``__wrapped__`` function's, or compiling it would skip the wrapper's code.

    The file is read now, and may have been edited since ``fn`` was made: the text must compile
    to ``fn``'s live code (``code_match``). Where lines were added or removed above it, the
    same ``def`` is looked for in the whole file; otherwise NoSourceError (it runs as it is).
    """
    raw = _unwrap(fn)
    label = getattr(raw, "__qualname__", repr(raw))
    if not isinstance(raw, types.FunctionType):
        raise NoSourceError(f"{label} is not a Python function (got {type(raw).__name__})")
    code = raw.__code__
    carried = carried_sources.get(code)
    if carried is not None:
        return carried
    filename = inspect.getsourcefile(raw) or code.co_filename
    if not filename.startswith("<"):
        filename = os.path.abspath(filename)
    if code.co_name == "<lambda>":
        return lambda_source(raw, filename)
    try:
        lines, first_line = _def_lines(raw)
        found, why = _from_block(lines, max(first_line, 1), filename, raw, code.co_name), None
    except (OSError, TypeError) as exc:  # no file, or no such line (any more)
        found, why = None, NoSourceError(f"cannot read the source of {label}: {exc}")
    except NoSourceError as exc:  # a lambda, or no def there (any more)
        found, why = None, exc
    if found is not None and compiles_to(found.text, code, sys.modules.get(raw.__module__ or "")):
        return found
    if why is not None and (not code.co_name.isidentifier() or not os.path.exists(filename)):
        raise why  # a lambda, a function exec'd from a string
    moved = _moved(raw, filename)
    if moved is not None:
        return moved
    raise NoSourceError(
        f"the source of {label} in {filename} is not the code that runs "
        "(the file was edited after it was imported; re-import it to compile the new text)"
    )


def lambda_source(fn: types.FunctionType, filename: str) -> FunctionSource:
    """A lambda as ``def __ac_lambda(params): return (body)`` on the lambda's own line, when
    that line of the file holds this one lambda and the def compiles to the lambda's code
    (anything else: NoSourceError, and it runs as it is)."""
    code = fn.__code__
    text = "".join(linecache.getlines(code.co_filename, fn.__globals__))
    try:
        lambdas = [
            node
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno
        ]
    except (SyntaxError, ValueError) as exc:
        raise NoSourceError(f"cannot parse {filename}: {exc}") from None
    where = f"line {code.co_firstlineno} of {filename}"
    if len(lambdas) != 1:
        raise NoSourceError(f"{where} holds {len(lambdas)} lambdas; give this one a def")
    node = lambdas[0]
    head = _segment(text, node.lineno, node.col_offset, node.body.lineno, node.body.col_offset)
    params = head.strip()[len("lambda") :].removesuffix(":").strip()
    body = ast.get_source_segment(text, node.body)
    source = f"def {LAMBDA_DEF}({params}): return ({body})\n"
    module = sys.modules.get(fn.__module__ or "")
    if not compiles_to(source, code.replace(co_name=LAMBDA_DEF), module):
        raise NoSourceError(f"the lambda on {where} is not the code that runs")
    return FunctionSource(fn, "<lambda>", filename, node.lineno, source, 0)


def _segment(text: str, line: int, col: int, end_line: int, end_col: int) -> str:
    """The text between two ``ast`` positions (columns are UTF-8 byte offsets)."""
    lines = text.splitlines(keepends=True)[line - 1 : end_line]
    encoded = [x.encode() for x in lines]
    if len(encoded) == 1:
        return encoded[0][col:end_col].decode()
    middle = b"".join(encoded[1:-1])
    return (encoded[0][col:] + middle + encoded[-1][:end_col]).decode()


def _moved(fn: types.FunctionType, filename: str) -> FunctionSource | None:
    """A ``def`` of ``fn``'s name anywhere in its file whose text compiles to its code (the
    nearest to where the code says, should several: they run the same)."""
    lines = linecache.getlines(filename)
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    code = fn.__code__
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            block = lines[first - 1 : node.end_lineno]
            try:
                src = _from_block(block, first, filename, fn, code.co_name)
            except NoSourceError:
                continue
            if compiles_to(src.text, code, sys.modules.get(fn.__module__ or "")):
                found.append(dataclasses.replace(src, moved=True))
    return min(found, key=lambda s: abs(s.def_line - code.co_firstlineno), default=None)


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
