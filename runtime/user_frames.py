"""Exceptions from compiled code, raised at the user's line.

An ``IndexError`` in a compiled loop is detected in C, reported through a status code and
raised by the region's wrapper: left alone, its traceback would end in ``<astcompile region
...>`` and in our own modules. Like Numba and Triton, we end it with a frame at the user's
line instead: :func:`raise_at` raises the exception from a tiny code object compiled with the
user's file name and line number (and named after the enclosing function), so the traceback
reads::

      File "/home/me/heat.py", line 11, in heat
        total = total + u[t]
    IndexError: index 10 is out of bounds for axis 0 with size 10

The statement spans at least the whole source line, so Python draws no ``^^^`` markers under
a part of the line it does not point at. Part of the runtime: it imports nothing else.
"""

from __future__ import annotations

import ast
import functools
import linecache
import types
from typing import NoReturn

_NAME = "__astcompile_error__"


def raise_at(exc: BaseException, filename: str, line: int) -> NoReturn:
    """Raise ``exc`` from a frame at ``filename``:``line``, with a note that compiled code
    raised it."""
    if hasattr(exc, "add_note"):  # Python 3.11+
        exc.add_note(f"(raised by compiled code of line {line}; see the C: ASTCOMPILE_DEBUG=1)")
    exec(_raiser(filename, line), {_NAME: exc})  # noqa: S102 - our own one-line code object
    raise exc  # not reached: the code above raises it


@functools.lru_cache(maxsize=256)
def _raiser(filename: str, line: int) -> types.CodeType:
    """``raise __astcompile_error__`` as line ``line`` of ``filename``, as wide as that line."""
    width = len(linecache.getline(filename, line).rstrip("\n"))
    statement = f"raise ({_NAME})"
    padding = " " * max(0, width - len(statement))
    code = compile("\n" * (line - 1) + f"raise ({_NAME}{padding})", filename, "exec")
    name = _function_at(filename, line)
    qualname = {"co_qualname": name} if hasattr(code, "co_qualname") else {}  # Python 3.11+
    return code.replace(co_name=name, **qualname)


def _function_at(filename: str, line: int) -> str:
    """The innermost function of ``filename`` around ``line`` ("<module>" when none)."""
    name = "<module>"
    for node in ast.walk(_tree(filename)):
        is_function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        if is_function and node.lineno <= line <= (node.end_lineno or node.lineno):
            name = node.name  # ast.walk is breadth first: inner functions come later
    return name


@functools.lru_cache(maxsize=32)
def _tree(filename: str) -> ast.Module:
    try:
        return ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return ast.Module([], [])
