"""Run a program on private copies of its inputs and compare two runs: the result, the
inputs after the call (in-place writes), what it printed and what it raised."""

from __future__ import annotations

import contextlib
import copy
import io
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Relative tolerance of a "close" (not bit-equal) float result, per dtype kind and itemsize.
RTOL = {4: 1e-4, 8: 1e-9, 16: 1e-9}


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
    """A deep copy: each call gets inputs nobody else has written to."""
    return copy.deepcopy(args)


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
    """Whether the compiled run did what the plain run did."""
    if plain.error is not None or compiled.error is not None:
        return _compare_errors(plain.error, compiled.error)
    problems: list[str] = []
    exact = _same(plain.result, compiled.result, "result", problems)
    exact &= _same(plain.args_after, compiled.args_after, "args after the call", problems)
    if plain.stdout != compiled.stdout:
        problems.append(f"printed {compiled.stdout[:80]!r}, plain printed {plain.stdout[:80]!r}")
    if problems:
        return Verdict("DIFFERS", "; ".join(problems))
    return Verdict("equal" if exact else "close")


def _compare_errors(plain: BaseException | None, compiled: BaseException | None) -> Verdict:
    if compiled is None:
        return Verdict("DIFFERS", f"plain raised {_describe(plain)}, compiled did not")
    if plain is None:
        return Verdict("ERROR", _describe(compiled))
    if type(plain) is not type(compiled) or str(plain) != str(compiled):
        return Verdict("DIFFERS", f"raised {_describe(compiled)}, plain {_describe(plain)}")
    return Verdict("equal")


def _describe(exc: BaseException | None) -> str:
    text = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}"


def _same(a: Any, b: Any, where: str, problems: list[str]) -> bool:
    """True if bit-equal; False if only close; a problem is appended if they differ."""
    if type(a) is not type(b):
        problems.append(f"{where}: type {type(b).__name__}, plain {type(a).__name__}")
        return False
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            problems.append(f"{where}: length {len(b)}, plain {len(a)}")
            return False
        exact = [_same(x, y, f"{where}[{i}]", problems) for i, (x, y) in enumerate(zip(a, b))]
        return all(exact)  # every item compared, so that every problem is reported
    if isinstance(a, dict):
        if list(a) != list(b):
            problems.append(f"{where}: keys differ")
            return False
        exact = [_same(a[k], b[k], f"{where}[{k!r}]", problems) for k in a]
        return all(exact)
    if isinstance(a, (np.ndarray, np.generic)):
        return _same_array(np.asarray(a), np.asarray(b), where, problems)
    if isinstance(a, (float, complex)):
        return _same_array(np.asarray(a), np.asarray(b), where, problems)
    if a != b:
        problems.append(f"{where}: {b!r}, plain {a!r}")
    return True


def _same_array(a: np.ndarray, b: np.ndarray, where: str, problems: list[str]) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        problems.append(f"{where}: {b.dtype}{list(b.shape)}, plain {a.dtype}{list(a.shape)}")
        return False
    if np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
        return True
    if a.dtype.kind in "fc":
        scale = float(np.nanmax(np.abs(a))) if a.size else 0.0
        rtol = RTOL.get(a.dtype.itemsize // (2 if a.dtype.kind == "c" else 1), 1e-9)
        if np.allclose(b, a, rtol=rtol, atol=rtol * scale, equal_nan=True):
            return False
    error = np.abs(a.astype(np.complex128) - b.astype(np.complex128))
    where_max = np.unravel_index(int(np.nanargmax(error)), a.shape) if a.ndim else ()
    problems.append(
        f"{where}: max abs error {float(np.nanmax(error)):.3g} at {where_max} "
        f"({b[where_max]!r}, plain {a[where_max]!r})"
    )
    return False


def unchanged(before: tuple, after: tuple) -> bool:
    """Whether a call left its inputs bit-equal (then timing needs no fresh copies)."""
    problems: list[str] = []
    return _same(before, after, "args", problems) and not problems
