"""``python -m bench.programs [--quick] [--only NAME] [--check eager,triton] [--small] [--profile]
[--json PATH] [--write-docs]``

Runs every program of this folder plain, compiled (C backend) and, when Numba is installed,
under ``numba.njit``, in one process: checks the compiled call (and those of the backends
``--check`` names: eager by default, ``triton`` too where it is installed, in its interpreter
without a GPU, where ``--small`` inputs keep it to seconds a program) does what the plain call
does (result, dtype, shape, writes to its inputs, printed text, exceptions), times the first ten calls of each (a short run, compiles included) and the steady
state (rounds interleaved), and prints one row per program with what broke (from
``astcompile.explain`` and the log channels). A program whose compiled form raises or gives
another answer is a row marked ERROR or DIFFERS, never skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Any

import astcompile
from bench.programs import Program, decorated, load, names
from bench.programs._causes import Diagnosis, captured_logs, diagnose
from bench.programs._compare import Outcome, Verdict, compare, fresh, run, unchanged
from bench.programs._numba import numba_version
from bench.programs._report import SECTION, markdown, row_line, write_section
from bench.programs._timing import (
    FIRST_CALLS,
    FULL,
    QUICK,
    Plan,
    calls_per_round,
    first_calls,
    interleaved,
    steady,
    timed,
)

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "docs")


@dataclass
class Row:
    name: str
    summary: str
    plain: float | None = None  # seconds per call
    compiled: float | None = None
    first_call: float | None = None  # compile included
    plain_first_ten: float | None = None  # seconds of the first FIRST_CALLS calls together
    compiled_first_ten: float | None = None  # compile included
    numba: float | None = None  # seconds per call
    numba_first_ten: float | None = None  # Numba's compile included
    numba_note: str = ""  # why Numba has no time
    verdict: Verdict = field(default_factory=lambda: Verdict("ERROR", "not run"))
    diagnosis: Diagnosis = field(default_factory=Diagnosis)
    profile: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        return _ratio(self.plain, self.compiled, self.verdict.ok)

    @property
    def first_ten_ratio(self) -> float | None:
        return _ratio(self.plain_first_ten, self.compiled_first_ten, self.verdict.ok)

    @property
    def numba_ratio(self) -> float | None:
        return _ratio(self.plain, self.numba, True)


def _ratio(plain: float | None, other: float | None, ok: bool) -> float | None:
    return plain / other if plain and other and ok else None


def run_program(
    program: Program,
    plan: Plan,
    profile: bool,
    checks: tuple[str, ...] = ("eager",),
    small: bool = False,
) -> Row:
    row = Row(program.name, program.summary)
    args = program.setup(small)
    plain_out = run(program.fn, args)
    hint = plain_out.seconds
    row.plain_first_ten = first_calls(program.fn, args)
    compiled = decorated(program.fn, lambda fn: astcompile.compile(fn, backend="c"))
    with captured_logs() as compile_logs:
        first = run(compiled, args)
        row.first_call = first.seconds
        row.compiled_first_ten = first.seconds + first_calls(compiled, args, FIRST_CALLS - 1)
    warm = compare(plain_out, run(compiled, args))
    others = [backend_verdict(program, args, plain_out, backend) for backend in checks]
    row.verdict = _worst(compare(plain_out, first), warm, *others)
    numba_run = numba_version(program.fn, args, plain_out)
    row.numba_note = numba_run.note
    if numba_run.fn is not None:
        rest = first_calls(numba_run.fn, args, FIRST_CALLS - 1)
        row.numba_first_ten = numba_run.first_call + rest
    copies = not unchanged(args, plain_out.args_after)
    if row.verdict.status != "ERROR":
        steady(compiled, args, copies)
        sides = [program.fn, compiled] + ([numba_run.fn] if numba_run.fn else [])
        times = interleaved(sides, args, copies, plan, hint)
        row.plain, row.compiled = times[:2]
        row.numba = times[2] if numba_run.fn else None
    row.diagnosis = diagnose(program.fn, args, compile_logs, compiled)
    if first.warnings:
        row.diagnosis.breaks += [f"warning: {w[:200]}" for w in first.warnings]
    if profile and row.ratio is not None and row.ratio < 0.95:
        row.profile = profile_calls(compiled, args, copies)
    return row


def backend_verdict(program: Program, args: tuple, plain_out: Outcome, backend: str) -> Verdict:
    """Another backend (eager: the same traced graphs run by NumPy; triton: GPU kernels) must
    give the answer too, on its first call and a warm one."""
    compiled = decorated(program.fn, lambda fn: astcompile.compile(fn, backend=backend))
    verdict = _worst(*(compare(plain_out, run(compiled, args)) for _ in range(2)))
    return verdict if verdict.ok else Verdict(verdict.status, f"{backend}: {verdict.detail}")


def interpret_without_gpu(checks: tuple[str, ...]) -> None:
    """Without a GPU, Triton's kernels run in its interpreter, which must be chosen before
    ``triton.language`` is first imported."""
    if "triton" not in checks:
        return
    try:
        with astcompile.device("cuda"):
            pass
    except RuntimeError:
        os.environ["TRITON_INTERPRET"] = "1"


def _worst(*verdicts: Verdict) -> Verdict:
    """The first call traces and compiles, the second runs the cached entries, other backends
    run the same graphs their way: check all."""
    order = ("ERROR", "DIFFERS", "close", "equal")
    return min(verdicts, key=lambda v: order.index(v.status))


def profile_calls(fn: Any, args: tuple, copies: bool, top: int = 6) -> list[str]:
    """The functions with the most own time over a round of calls of ``fn``."""
    profiler = cProfile.Profile()
    with contextlib.redirect_stdout(io.StringIO()):
        calls = max(3, calls_per_round(timed(lambda: fn(*fresh(args)))[1], FULL) * 10)
        inputs = [fresh(args) for _ in range(calls)] if copies else [args] * calls
        profiler.enable()
        for a in inputs:
            fn(*a)
        profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    total = max(stats.total_tt, 1e-12)
    entries = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    return [
        f"{_where(func)} {100 * tt / total:.0f}% ({ncalls / calls:.3g} calls/call)"
        for func, (_, ncalls, tt, _, _) in entries
    ]


def _where(func: tuple) -> str:
    filename, line, name = func
    if filename == "~":
        return name
    parts = filename.replace("\\", "/").split("/")
    short = "/".join(parts[-2:]) if "astcompile" in filename else parts[-1]
    return f"{short}:{line}({name})"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.programs", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter timing rounds")
    parser.add_argument("--only", help="run only programs whose name contains this text")
    parser.add_argument(
        "--check",
        default="eager",
        help="comma-separated backends whose answers are checked besides C's (eager, triton)",
    )
    parser.add_argument("--small", action="store_true", help="the programs' small inputs")
    parser.add_argument("--profile", action="store_true", help="profile programs under 0.95x")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    parser.add_argument(
        "--write-docs", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md"
    )
    opts = parser.parse_args()
    cache = tempfile.TemporaryDirectory(prefix="astcompile-programs-")  # first calls compile
    astcompile.config.cache_dir = cache.name
    plan = QUICK if opts.quick else FULL
    checks = tuple(b for b in opts.check.split(",") if b)
    interpret_without_gpu(checks)
    rows = []
    for name in names():
        if opts.only and opts.only not in name:
            continue
        rows.append(run_program(load(name), plan, opts.profile, checks, opts.small))
        print(row_line(rows[-1]), flush=True)
    text = markdown(rows)
    print("\n" + text)
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump([_as_json(r) for r in rows], f, indent=1)
    if opts.write_docs:
        write_section(os.path.join(DOCS, "benchmarks.md"), text)


def _as_json(row: Row) -> dict[str, Any]:
    ratios = {"ratio": row.ratio, "first_ten_ratio": row.first_ten_ratio}
    return {**asdict(row), **ratios, "numba_ratio": row.numba_ratio}


if __name__ == "__main__":
    main()
