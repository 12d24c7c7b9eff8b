"""Run a program on private copies of its inputs and compare two runs by astcompile's one
comparator (:mod:`astcompile.compare`): the result, the inputs after the call (in-place
writes), what it raised, and here also what it printed."""

from __future__ import annotations

import contextlib
import io
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from astcompile.compare import (
    Allowance,
    copy_args,
    describe,
    differences,
    exception_differences,
    input_floor,
)


@dataclass
class Outcome:
    result: Any = None
    args_after: tuple = ()
    stdout: str = ""
    error: BaseException | None = None
    warnings: list[str] = field(default_factory=list)  # astcompile's own warnings
    seconds: float = 0.0  # the call alone, without copying its inputs


@dataclass
class Verdict:
    status: str  # "equal", "close", "DIFFERS" or "ERROR"
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("equal", "close")


def fresh(args: tuple) -> tuple:
    """A copy (views kept views): each call gets inputs nobody else has written to."""
    return copy_args(args)


def run(fn: Callable[..., Any], args: tuple) -> Outcome:
    """Call ``fn`` on a copy of ``args``, capturing stdout, the exception and our warnings."""
    out = Outcome(args_after=fresh(args))
    sink = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(sink):
        warnings.simplefilter("always")
        start = time.perf_counter()
        try:
            out.result = fn(*out.args_after)
        except Exception as exc:  # noqa: BLE001 - an exception is part of the outcome
            out.error = exc
        out.seconds = time.perf_counter() - start
    out.stdout = sink.getvalue()
    out.warnings = [str(w.message) for w in caught if str(w.message).startswith("astcompile")]
    return out


def compare(plain: Outcome, compiled: Outcome) -> Verdict:
    """Whether the compiled run did what the plain run did: "equal" if bit for bit, "close"
    if within the tolerances, else "ERROR" (only the compiled run raised) or "DIFFERS"."""
    if compiled.error is not None and plain.error is None:
        return Verdict("ERROR", describe(compiled.error))
    problems = exception_differences(compiled.error, plain.error)
    if plain.stdout != compiled.stdout:
        problems.append(f"printed {compiled.stdout[:80]!r}, plain printed {plain.stdout[:80]!r}")
    problems += _differences(plain, compiled, input_floor(plain.args_after))
    if problems:
        return Verdict("DIFFERS", "; ".join(problems))
    return Verdict("close" if _differences(plain, compiled, None) else "equal")


def _differences(plain: Outcome, compiled: Outcome, floor: Allowance | None) -> list[str]:
    return differences(compiled.result, plain.result, "result", floor) + differences(
        compiled.args_after, plain.args_after, "args after the call", floor
    )


def unchanged(before: tuple, after: tuple) -> bool:
    """Whether a call left its inputs bit-equal (then timing needs no fresh copies)."""
    return not differences(after, before, "args", floor=None)
