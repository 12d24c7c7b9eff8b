"""The static check behind ``astcompile check`` (and ``build``): files in, located breaks out.

Per file: read it, ``ast.parse`` it (a syntax error becomes an ``E999`` problem and the file is
skipped), find its compiled functions (:mod:`discover`), and run the decorator's own analysis on
each with a ``StaticResolver`` (frontend/static_resolve.py) shared by the whole file, so the
module is parsed by libcst once and each callee's verdict is computed once. A user function with
breaks that compiled code calls is compiled on its own at run time, so it is checked as well.
Files that never mention ``astcompile`` cannot compile anything and are only syntax-checked.
"""

from __future__ import annotations

import ast
import itertools
import multiprocessing
import os
import tokenize
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import libcst as cst

from astcompile.cli.discover import (
    CALLEE,
    Target,
    breaking_callees,
    compiled_targets,
    module_functions,
)
from astcompile.errors import NoSourceError
from astcompile.frontend.analysis import analyze_function
from astcompile.frontend.breaks import BreakReason, GraphBreak
from astcompile.frontend.source import FunctionSource
from astcompile.frontend.static_resolve import StaticResolver
from astcompile.frontend.tree import ModuleTree

#: Below this many files per process, starting processes costs more than it saves.
MIN_FILES_PER_JOB = 4


@dataclass(frozen=True)
class CheckOptions:
    """Which codes to report: ruff-style prefixes (``GB01`` selects GB010–GB019)."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def keeps(self, code: str) -> bool:
        selected = not self.select or any(code.startswith(p) for p in self.select)
        return selected and not any(code.startswith(p) for p in self.ignore)


@dataclass(frozen=True)
class FileError:
    """A file that could not be checked: ``E999`` (syntax) or ``E902`` (unreadable)."""

    path: str
    line: int
    col: int
    code: str
    message: str

    def describe(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"


@dataclass(frozen=True)
class FunctionReport:
    """One compiled function and its breaks (after ``select``/``ignore``)."""

    target: Target
    breaks: tuple[GraphBreak, ...]
    loop_notes: tuple[str, ...] = ()  # loops that run in Python, and the line that keeps them


@dataclass(frozen=True)
class FileReport:
    path: str
    functions: tuple[FunctionReport, ...] = ()
    error: FileError | None = None

    @property
    def breaks(self) -> list[GraphBreak]:
        found = [b for f in self.functions for b in f.breaks]
        return sorted(found, key=lambda b: (b.line, b.col, b.code))


@dataclass(frozen=True)
class CheckReport:
    files: tuple[FileReport, ...]

    @property
    def breaks(self) -> list[GraphBreak]:
        return [b for f in self.files for b in f.breaks]

    @property
    def functions(self) -> list[FunctionReport]:
        return [fn for f in self.files for fn in f.functions]

    @property
    def errors(self) -> list[FileError]:
        return [f.error for f in self.files if f.error is not None]


def check_paths(
    files: list[str], options: CheckOptions = CheckOptions(), jobs: int = 1
) -> CheckReport:
    """Check each file (:func:`astcompile.cli.files.python_files` expands folders).

    With ``jobs > 1`` and enough files, files are checked in that many processes; the report
    is the same, in the same order.
    """
    if jobs <= 1 or len(files) < MIN_FILES_PER_JOB * jobs:
        return CheckReport(tuple(check_file(path, options) for path in files))
    chunk = max(1, len(files) // (4 * jobs))
    with ProcessPoolExecutor(jobs, mp_context=_fork_context()) as pool:
        reports = pool.map(check_file, files, itertools.repeat(options), chunksize=chunk)
        return CheckReport(tuple(reports))


def default_jobs() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _fork_context() -> multiprocessing.context.BaseContext | None:
    """Fork where there is one: the workers start with libcst and the frontend imported."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork") if "fork" in methods else None


def check_file(path: str, options: CheckOptions = CheckOptions()) -> FileReport:
    """Every compiled function of one file with its breaks; nothing of the file is executed."""
    try:
        with tokenize.open(path) as handle:  # honours a PEP 263 coding line
            text = handle.read()
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        return FileReport(path, error=FileError(path, 1, 1, "E902", f"cannot read: {exc}"))
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as exc:
        return FileReport(path, error=_syntax_error(path, exc))
    if "astcompile" not in text:
        return FileReport(path)
    try:
        module = ModuleTree(cst.parse_module(text), text, tree)
    except cst.ParserSyntaxError as exc:
        error = FileError(
            path, exc.raw_line, exc.raw_column + 1, "E999", f"SyntaxError: {exc.message}"
        )
        return FileReport(path, error=error)
    try:
        functions = module_functions(tree, text, path)
    except NoSourceError as exc:  # a def block that does not parse on its own
        return FileReport(path, error=FileError(path, 1, 1, "E902", f"cannot read: {exc}"))
    top_level = {name: src for name, src in functions.items() if "." not in name}
    resolver = StaticResolver(module.module, path, tree=module, sources=top_level)
    targets = compiled_targets(tree, functions, resolver.qualify)
    return FileReport(path, tuple(_analyse(targets, functions, resolver, options)))


def _analyse(
    targets: list[Target],
    functions: dict[str, FunctionSource],
    resolver: StaticResolver,
    options: CheckOptions,
) -> Iterator[FunctionReport]:
    """Analyse the targets, then the user functions with breaks that they call, transitively."""
    queue = list(targets)
    seen = {t.name for t in queue}
    for target in queue:
        try:
            analysis = analyze_function(target.source, resolver, resolver.tree)
        except NoSourceError:
            continue
        breaks = tuple(b for b in analysis.breaks if options.keeps(b.code))
        yield FunctionReport(target, breaks, analysis.loop_notes)
        for name in breaking_callees(analysis, resolver):
            if name not in seen and name in functions:
                seen.add(name)
                queue.append(Target(name, functions[name], CALLEE))


def _syntax_error(path: str, exc: Exception) -> FileError:
    if isinstance(exc, SyntaxError):
        line, col = exc.lineno or 1, exc.offset or 1
        return FileError(path, line, col, "E999", f"SyntaxError: {exc.msg}")
    return FileError(path, 1, 1, "E999", f"SyntaxError: {exc}")


#: The codes ``--select``/``--ignore`` accept (prefixes of these).
CODES = tuple(r.code for r in BreakReason)
