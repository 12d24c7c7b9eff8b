"""Output of ``astcompile check``: plain text lines for editors and pre-commit, or JSON.

Text (no colour, no terminal codes, so ``NO_COLOR`` and log files need nothing special)::

    pkg/model.py:14:5: GB012 print() has side effects (fix: move it out or use astcompile.disable)
    pkg/broken.py:3:9: E999 SyntaxError: '(' was never closed

    Found 1 graph break in 1 of 3 compiled functions (2 files checked, 1 could not be parsed).
    error: step() in pkg/model.py:10 is compiled with fullgraph=True and has 1 graph break

JSON: see :func:`to_json` and docs/cli.md (``"version": 1``).
"""

from __future__ import annotations

from astcompile.cli.scan import CheckReport
from astcompile.frontend.breaks import GraphBreak

JSON_VERSION = 1


def format_text(report: CheckReport, violations: list[str], quiet: bool = False) -> str:
    """Every diagnostic line (unless ``quiet``), a blank line, the summary, then the violations."""
    lines = [] if quiet else _diagnostic_lines(report)
    if lines:
        lines.append("")
    lines.append(summary(report))
    lines += [f"error: {v}" for v in violations]
    return "\n".join(lines) + "\n"


def summary(report: CheckReport) -> str:
    breaks, functions = len(report.breaks), report.functions
    broken = sum(1 for f in functions if f.breaks)
    files = f"{_plural(len(report.files), 'file')} checked"
    if report.errors:
        files += f", {len(report.errors)} could not be parsed"
    if not breaks:
        return f"No graph breaks in {_plural(len(functions), 'compiled function')} ({files})."
    return (
        f"Found {_plural(breaks, 'graph break')} in {broken} of "
        f"{_plural(len(functions), 'compiled function')} ({files})."
    )


def to_json(report: CheckReport, violations: list[str], budget: dict, exit_code: int) -> dict:
    """The report as plain data; ``budget`` holds the limits in force and where they came from."""
    return {
        "version": JSON_VERSION,
        "files_checked": len(report.files),
        "breaks": [_break_json(b, fullgraph) for b, fullgraph in _breaks_with_mode(report)],
        "errors": [
            {"path": e.path, "line": e.line, "col": e.col, "code": e.code, "message": e.message}
            for e in report.errors
        ],
        "functions": [
            {
                "path": f.path,
                "name": fn.target.name,
                "line": fn.target.line,
                "how": fn.target.how,
                "fullgraph": fn.target.fullgraph,
                "breaks": len(fn.breaks),
            }
            for f in report.files
            for fn in f.functions
        ],
        "loop_notes": [n for f in report.files for fn in f.functions for n in fn.loop_notes],
        "summary": summary(report),
        "budget": budget,
        "violations": violations,
        "exit_code": exit_code,
    }


def _diagnostic_lines(report: CheckReport) -> list[str]:
    lines = []
    for file in report.files:
        if file.error is not None:
            lines.append(file.error.describe())
        lines += [b.describe() for b in file.breaks]
        lines += [note for fn in file.functions for note in fn.loop_notes]
    return lines


def _breaks_with_mode(report: CheckReport) -> list[tuple[GraphBreak, bool]]:
    """Breaks in the text output's order, each with its function's ``fullgraph`` flag."""
    pairs = []
    for file in report.files:
        found = [(b, fn.target.fullgraph) for fn in file.functions for b in fn.breaks]
        pairs += sorted(found, key=lambda p: (p[0].line, p[0].col, p[0].code))
    return pairs


def _break_json(b: GraphBreak, fullgraph: bool) -> dict:
    return {
        "path": b.filename,
        "line": b.line,
        "col": b.col,
        "code": b.code,
        "title": b.reason.title,
        "message": b.detail,
        "fix": b.fix,
        "function": b.function,
        "fullgraph": fullgraph,
        "source_line": b.source_line,
    }


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
