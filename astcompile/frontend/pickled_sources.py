"""Sources that travel with a pickle: a function compiled in another process than it was read in.

A closure, a function defined in ``__main__`` or a notebook, or one compiled under another name
pickles by value (``jit/pickling.py``), and the receiving process (a ``spawn`` pool worker, a
Dask worker on another machine) has no file to read its source from: cloudpickle even renames
the code's file to ``<dynamic-code>``. So the pickle carries each such function's source as the
sending process read it (:func:`records`: the text, its file, line and indent), for the
compiled function and for the plain functions it reaches by value (its helpers in ``__main__``,
the functions in its closure), and :func:`register` makes it the source of the unpickled
functions, keyed by their code objects, where :func:`source.function_source` finds it first.

A carried text is used only where it compiles to the unpickled code (:func:`matches_code`): the
pickle is trusted as much as the code in it, but a text that does not match its code would
compile something else than the function the user pickled.
"""

from __future__ import annotations

import importlib
import linecache
import os
import types
from typing import Any

from astcompile.frontend.code_match import compiles_to
from astcompile.frontend.source import FunctionSource, carried_sources, function_source

#: (qualified name, first line of the code) -> the carried fields of its FunctionSource
Record = tuple[str, int, str, str, int, str, int]

#: How many functions one pickle carries at most (a walk through a large ``__main__``).
MOST = 64


def records(fn: types.FunctionType) -> tuple[Record, ...]:
    """What a pickle of ``fn`` carries: the source of ``fn`` and of each function it reaches
    that pickles by value, as far as this process can read them."""
    found = []
    for function in reachable(fn):
        if function is not fn and by_reference(function):
            continue
        try:
            src = function_source(function)
        except Exception:  # noqa: BLE001 - no source here either: that function runs as it is
            continue
        first = function.__code__.co_firstlineno
        found.append(
            (function.__qualname__, first, src.name, src.filename, src.def_line)
            + (src.text, src.indent)
        )
    return tuple(found)


def register(fn: types.FunctionType, carried: tuple[Record, ...]) -> None:
    """Make the carried sources those of ``fn`` and the functions it reaches in this process,
    each where it compiles to that function's code."""
    by_name = {(r[0], r[1]): r for r in carried}
    for function in reachable(fn):
        code = function.__code__
        record = by_name.get((function.__qualname__, code.co_firstlineno))
        if record is None or code in carried_sources:
            continue
        _, _, name, filename, def_line, text, indent = record
        src = FunctionSource(function, name, filename, def_line, text, indent)
        if matches_code(src, code):
            carried_sources[code] = src
            _show_in_tracebacks(src)


def reachable(fn: types.FunctionType) -> list[types.FunctionType]:
    """``fn`` and the Python functions it can call: those in its closure cells and the globals
    its code names, and theirs in turn (at most :data:`MOST`), in a fixed order."""
    seen: dict[int, types.FunctionType] = {}
    stack = [fn]
    while stack and len(seen) < MOST:
        function = stack.pop(0)
        if id(function) in seen:
            continue
        seen[id(function)] = function
        stack.extend(_callees(function))
    return list(seen.values())


def _callees(function: types.FunctionType) -> list[types.FunctionType]:
    cells = [_cell(c) for c in function.__closure__ or ()]
    names = _names(function.__code__)
    named = [function.__globals__.get(n) for n in names]
    return [f for f in (*cells, *named) if isinstance(f, types.FunctionType)]


def _cell(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _names(code: types.CodeType) -> list[str]:
    nested = [n for c in code.co_consts if isinstance(c, types.CodeType) for n in _names(c)]
    return [*code.co_names, *nested]


def by_reference(obj: Any) -> bool:
    """Whether pickle finds ``obj`` by reference: importing its module and following its
    qualified name gives back ``obj`` itself (not so in ``__main__``, for a closure, or for a
    function bound to another name)."""
    module = getattr(obj, "__module__", None)
    if module in (None, "__main__"):
        return False
    try:
        found: Any = importlib.import_module(module)
        for part in obj.__qualname__.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return False
    return found is obj


def matches_code(src: FunctionSource, code: types.CodeType) -> bool:
    """Whether ``src`` compiles to ``code``: the same instructions, names and constants (line
    numbers and the file name aside; see ``frontend/code_match.py``)."""
    return compiles_to(src.text, code)


def _show_in_tracebacks(src: FunctionSource) -> None:
    """Where the file the source came from is not here, tracebacks and error messages that
    name its lines read them from the carried text (``linecache``, never checked against a
    file: there is none)."""
    if src.filename.startswith("<") or os.path.exists(src.filename):
        return
    lines = [" " * src.indent + line for line in src.text.splitlines(keepends=True)]
    known = linecache.cache.get(src.filename)
    padded = list(known[2]) if known and len(known) == 4 else []
    padded += ["\n"] * (src.def_line - 1 - len(padded))
    padded[src.def_line - 1 : src.def_line - 1 + len(lines)] = lines
    linecache.cache[src.filename] = (sum(map(len, padded)), None, padded, src.filename)
