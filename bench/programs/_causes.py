"""What broke in a program, in short words that can be counted across programs.

Three sources: ``astcompile.explain`` (the graph breaks, each with its reason code), the
``graph_breaks`` and ``recompiles`` log channels (a region the C backend could not lower runs
on the graph interpreter and ``explain`` still calls it compiled; a region of scalars only runs
as Python), and a recording of one warm call: after a first call whose trace failed, loops are
split and run in Python, so the steady state can differ from what the first call showed.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import astcompile
from bench.programs._compare import fresh

#: (pattern on a break's detail or a log line, short cause). The first match wins; group 1,
#: where there is one, is put into the short cause.
CAUSES: list[tuple[str, str]] = [
    (r"not supported by the tracer: (np\.[\w.]+)", "{} unsupported"),
    (r"tracing failed: (.*)", "trace failed: {}"),
    (r"`if` test .* depends on array values", "data-dependent if"),
    (r"`while` test .* depends on array values", "data-dependent while"),
    (r"(\w+)\(\) is not a NumPy, math or user function", "call to {}()"),
    (r"(\w+)\(\) has side effects", "{}() (side effect)"),
    (r"`raise` statement", "raise"),
    (
        r"the C backend does not support %\d+ leaves (.*?) as a view",
        "C backend: loop leaves a view",
    ),
    (r"the C backend does not support ([^(]*?)\s*(?:\(|$)", "C backend: {}"),
    (r"computes only scalars", "scalar-only region runs as Python"),
    (r": (\w+) on (\w+) at .* runs as a NumPy step", "NumPy step: {} on {}"),
    (r"^([^:]+):", "{}"),
]

#: Log lines that are not causes (explain reports the same break with its code).
_NOT_CAUSES = re.compile(r"GB\d{3} |recompiling|running it in NumPy")


def short_cause(text: str) -> str:
    for pattern, template in CAUSES:
        found = re.search(pattern, text)
        if found:
            return template.format(*(g.strip() for g in found.groups()))
    return text[:60]


@dataclass
class Diagnosis:
    causes: list[str] = field(default_factory=list)  # short, countable, in order met
    breaks: list[str] = field(default_factory=list)  # "line 12: GB007 ..." as explain says
    regions: str = ""  # steady state, e.g. "2 compiled, 1 plain, 1 interpreted"
    loops: list[str] = field(default_factory=list)  # loops run in Python, with iterations
    error: str = ""  # explain itself failed

    def add(self, cause: str) -> None:
        if cause not in self.causes:
            self.causes.append(cause)


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextlib.contextmanager
def captured_logs() -> Iterator[list[str]]:
    """The messages of the graph_breaks and recompiles channels while the block runs."""
    handler = _Capture()
    loggers = [logging.getLogger(f"astcompile.{c}") for c in ("graph_breaks", "recompiles")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.INFO)
        lg.addHandler(handler)
    try:
        yield handler.lines
    finally:
        for lg, level in zip(loggers, levels):
            lg.removeHandler(handler)
            lg.setLevel(level)


def diagnose(fn: Any, args: tuple, compile_logs: list[str], warm: Any) -> Diagnosis:
    """Explain ``fn`` on ``args``; ``compile_logs`` are the log lines of the timed compiled
    function's first call, ``warm`` that function after its timed calls."""
    found = Diagnosis()
    try:
        with contextlib.redirect_stdout(io.StringIO()), captured_logs() as lines:
            report = astcompile.explain(astcompile.compile(fn, backend="c"), *fresh(args))
    except Exception as exc:  # noqa: BLE001 - reported in the row, never hidden
        found.error = f"explain raised {type(exc).__name__}: {exc}"[:200]
        return found
    for b in report.break_reasons:
        found.breaks.append(f"line {b.line}: {b.code} {b.detail}")
        found.add(short_cause(b.detail))
    for line in [*compile_logs, *lines]:
        if not _NOT_CAUSES.search(line):
            found.add(short_cause(line))
    interpreted = _interpreted_regions([*compile_logs, *lines])
    found.regions, found.loops = steady_state(warm, args, interpreted)
    return found


def _interpreted_regions(lines: list[str]) -> set[str]:
    """Regions ("fn_region_0") the C backend handed to the graph interpreter."""
    return {m.group(1) for m in map(re.compile(r"^(\S+) runs eagerly").match, lines) if m}


def steady_state(warm: Any, args: tuple, interpreted: set[str]) -> tuple[str, list[str]]:
    """How the regions of one more call of ``warm`` ran, and the loops it ran in Python.
    Reads the recorder ``explain`` uses; where this astcompile has none, says so."""
    try:
        from astcompile.jit import telemetry
    except ImportError:
        return "(no recorder)", []
    with contextlib.redirect_stdout(io.StringIO()), telemetry.Recorder() as recorder:
        warm(*fresh(args))
    states: dict[str, int] = {}
    for run in recorder.runs.values():
        state = _state(run, f"{run.function}_{run.region.removeprefix('__ac_')}" in interpreted)
        states[state] = states.get(state, 0) + 1
    loops = [
        f"lines {first}-{last}: {count} iterations"
        for (_, first, last), count in sorted(recorder.loops.items(), key=lambda kv: kv[0][1])
    ]
    return ", ".join(f"{n} {s}" for s, n in states.items()), loops


def _state(run: Any, interpreted: bool) -> str:
    if run.eager_calls == 0:
        return "interpreted" if interpreted else "compiled"
    return "plain" if run.compiled_calls == 0 else "mixed"
