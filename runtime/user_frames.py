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
a part of the line it does not point at.

``warnings.warn(message, stacklevel=2)`` in a compiled function names its caller's line, as it
does in the plain one: the rewrite calls it through :func:`warn`, which counts the levels in
the user's frames only (ours between a caller and the compiled function, and the region frame
and the rewritten function's, which are one call of the user's function, count as none) and
hands ``warnings.warn`` the level that reaches that frame from its own. Part of the runtime:
it imports nothing else.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os
import sys
import types
import warnings
import weakref
from collections.abc import Callable
from typing import Any, NoReturn

_NAME = "__astcompile_error__"


def raise_at(
    exc: BaseException,
    filename: str,
    line: int,
    tail: types.TracebackType | None = None,
    see: str = "see the C: ASTCOMPILE_DEBUG=1",
) -> NoReturn:
    """Raise ``exc`` from a frame at ``filename``:``line``, with a note that compiled code
    raised it (``see``: where to look). ``tail``: the traceback of the code that raised it
    (NumPy's ``inv``, which raised LinAlgError): its frames, less ours, follow the user's line,
    as they follow it in the plain program."""
    note = f"(raised by compiled code of line {line}; {see})"
    if hasattr(exc, "add_note") and note not in getattr(exc, "__notes__", ()):  # Python 3.11+
        exc.add_note(note)
    exc.__traceback__ = _theirs(tail)
    exec(_raiser(filename, line), {_NAME: exc})  # noqa: S102 - our own one-line code object
    raise exc  # not reached: the code above raises it


def _theirs(tb: types.TracebackType | None) -> types.TracebackType | None:
    """``tb`` without the frames of our modules."""
    kept = []
    while tb is not None:
        if not ours(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    chain = None
    for entry in reversed(kept):
        chain = types.TracebackType(chain, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return chain


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


#: The code of region bodies: a region's frame and the rewritten function's frame that called
#: it (ours between them) are one call of the user's function (``stages.materialise`` adds).
REGION_CODES: weakref.WeakSet[types.CodeType] = weakref.WeakSet()


def _itself(fn: Callable) -> Callable:
    return fn


#: What a function called through :func:`warn` runs as: its twin, where it may give ``warn`` a
#: level (``jit/warn_twin.plain_of`` sets this; the runtime imports nothing of the compiler).
plain_of: Callable[[Callable], Callable] = _itself


def warn(callee: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """``callee(*args, **kwargs)``, where the user's code calls ``callee``, maybe with a
    ``stacklevel``: for ``warnings.warn``, the level counted in the user's frames; for a helper
    of the user's that may give ``warn`` a level, its twin. Which one a name means is decided
    at each call: a global ``warn`` rebound between calls is followed."""
    if callee is not warnings.warn:
        return plain_of(callee)(*args, **kwargs)
    try:
        message, category, level, source, rest = _warn_arguments(*args, **kwargs)
        level = int(level.__index__())
    except (TypeError, AttributeError):  # warn's own error, raised by warn
        return callee(*args, **kwargs)
    if abs(level) > sys.maxsize:  # warn's OverflowError
        return callee(*args, **kwargs)
    return callee(message, category, _level(level, sys._getframe(1)), source, **rest)


def _warn_arguments(
    message: Any, category: Any = None, stacklevel: Any = 1, source: Any = None, **rest: Any
) -> tuple:
    return message, category, stacklevel, source, rest


def _level(stacklevel: int, caller: types.FrameType) -> int:
    """The ``stacklevel`` that, given to ``warnings.warn`` by :func:`warn`, names the frame
    ``stacklevel`` names from ``caller`` in the plain program (CPython steps over its import
    machinery's frames, and so over ours here)."""
    target: types.FrameType | None = caller
    for _ in range(stacklevel - 1):
        target = _next_user(target)
        if target is None:
            break
    level, frame = 2, caller  # warnings.warn's own steps, from warn's frame to the target
    while frame is not None and frame is not target:
        frame = frame.f_back
        if frame is not None and not _internal(frame):
            level += 1
    return level if target is not None else level + 1  # past the outermost frame


def _next_user(frame: types.FrameType) -> types.FrameType | None:
    """The frame that called ``frame``'s function in the plain program."""
    region = frame.f_code in REGION_CODES
    frame = _past_ours(frame.f_back)
    if region and frame is not None:  # the rewritten function: the same call
        frame = _past_ours(frame.f_back)
    return frame


def _past_ours(frame: types.FrameType | None) -> types.FrameType | None:
    while frame is not None and (_internal(frame) or ours(frame.f_code.co_filename)):
        frame = frame.f_back
    return frame


def _internal(frame: types.FrameType) -> bool:
    """CPython's test of a frame of its import machinery, which warnings skip."""
    filename = frame.f_code.co_filename
    return "importlib" in filename and "_bootstrap" in filename


def ours(filename: str) -> bool:
    """Whether code of ``filename`` is the compiler's, the runtime's or code we generated."""
    return filename.startswith(_own_folders())


@functools.cache
def _own_folders() -> tuple[str, ...]:
    """This package's folder and the compiler's (one folder above it where installed; beside
    it in a checkout), and the names our generated code is compiled under."""
    compiler = sys.modules["astcompile"].__file__ or ""
    return (os.path.dirname(__file__) + os.sep, os.path.dirname(compiler) + os.sep, "<astcompile")
