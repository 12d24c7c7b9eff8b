"""The markdown of a run: one row per program, the summary, how often each cause broke a
program, and the programs slower than plain with what the diagnosis and profile say."""

from __future__ import annotations

import math
import os
from collections import Counter
from typing import Any

SECTION = "## Real programs"
INTRO = f"""{SECTION}

Measured by `python -m bench.programs --profile --write-docs` in one run: each program in
`bench/programs/` is a whole function as a scientist writes it, run plain (CPython + NumPy) and
compiled with `astcompile.compile(fn, backend="c")` in the same process, timed interleaved (best
of several rounds, many calls per round for the microsecond ones). "first call" is the compiled
call that traced and built it, with an empty disk cache. "check" compares the C and the eager
backend's results with plain (`--check eager,triton` adds Triton's, in its interpreter without
a GPU, which `--small` inputs keep to seconds a program): Python type, dtype, shape,
writes to the inputs, printed text and exceptions (*close*: floats within the tolerances of
`astcompile/compare.py`, not bit for bit).
"first 10 calls" is plain/compiled over a short run: the first ten calls of each together, the
compiled side's compile included (the user's whole run when a program is called only a few
times). "Numba" is plain/`numba.njit` in the same rounds, the program decorated as its author
would (a recursive call goes through the jitted function); where Numba cannot compile a program
or gives another answer, the cell says so. About half the programs are written in other
people's styles on purpose: Python lists and tuples, recursion, dynamic programming, strings and
dicts, tiny BLAS-1 calls, loops written for `@njit` or ahead-of-time compilers.
"regions" is how the regions of a warm call ran: *compiled*; *interpreted* (the C backend
could not lower it and the graph interpreter ran it, which `explain` reports as compiled);
*plain* (the user's statements ran). The machine has 2 cores shared with other work: ratios
come from the same run, absolute times are noisy.

"""
SLOW = 0.95


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.2f} ms"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def fmt_ratio(ratio: float | None, bold: bool = False) -> str:
    if ratio is None:
        return "–"
    text = f"{ratio:.2f}×" if ratio >= 0.1 else f"{ratio:.2g}×"  # 0.0031×, not 0.00×
    return f"**{text}**" if bold else text


def row_line(row: Any) -> str:
    check = row.verdict.status
    if not row.verdict.ok:
        check = f"**{check}**: {row.verdict.detail}"
    broke = "; ".join(row.diagnosis.causes) or ("" if not row.diagnosis.error else "?")
    numba = fmt_ratio(row.numba_ratio)
    numba_ten = fmt_ratio(_divide(row.plain_first_ten, row.numba_first_ten))
    cells = [
        row.name,
        fmt_time(row.plain),
        fmt_time(row.compiled),
        fmt_ratio(row.ratio, bold=True),
        fmt_ratio(row.first_ten_ratio),
        fmt_time(row.first_call),
        numba if row.numba_ratio is not None else (row.numba_note or "–"),
        numba_ten,
        check,
        row.diagnosis.regions or row.diagnosis.error,
        broke,
    ]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _divide(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def table(rows: list) -> str:
    head = ["program", "plain", "compiled", "plain/compiled", "first 10 calls", "first call"]
    head += ["Numba", "Numba first 10", "check", "regions (warm call)", "what broke"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + [row_line(r) for r in rows])


def _geomean(ratios: list[float]) -> float:
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def summary(rows: list) -> str:
    timed = [r for r in rows if r.ratio is not None]
    bad = [r for r in rows if not r.verdict.ok]
    if not timed:
        return "No program was timed."
    worst = min(timed, key=lambda r: r.ratio)
    fast = sum(r.ratio >= 2.0 for r in timed)
    slow = sum(r.ratio < SLOW for r in timed)
    text = (
        f"{len(rows)} programs, {len(timed)} timed. Geometric mean of plain/compiled: "
        f"**{_geomean([r.ratio for r in timed]):.2f}×**; worst: **{worst.ratio:.2f}×** "
        f"({worst.name}); {fast} programs at ≥2× faster, {slow} slower than {SLOW}× plain."
    )
    text += _first_ten_summary(timed) + _numba_summary(rows, timed)
    if bad:
        text += " Wrong or failing: " + ", ".join(f"{r.name} ({r.verdict.status})" for r in bad)
        text += "."
    return text


def _first_ten_summary(timed: list) -> str:
    ten = [r.first_ten_ratio for r in timed if r.first_ten_ratio is not None]
    if not ten:
        return ""
    slow = sum(r < SLOW for r in ten)
    return (
        f" First 10 calls (compile included): geometric mean **{_geomean(ten):.2f}×**, "
        f"{slow} slower than {SLOW}× plain."
    )


def _numba_summary(rows: list, timed: list) -> str:
    numba = [r for r in timed if r.numba_ratio is not None]
    if not numba:
        return ""
    ours = _geomean([r.ratio for r in numba])
    theirs = _geomean([r.numba_ratio for r in numba])
    failed = sum(r.numba_ratio is None and "not installed" not in r.numba_note for r in rows)
    return (
        f" Numba compiles {len(numba)} of them: on those, geometric mean **{theirs:.2f}×** "
        f"plain against our **{ours:.2f}×**; {failed} programs do not compile or differ "
        "under Numba."
    )


def causes(rows: list) -> str:
    """How many programs each cause broke, most frequent first."""
    count: Counter = Counter()
    where: dict[str, list[str]] = {}
    for r in rows:
        for cause in r.diagnosis.causes:
            count[cause] += 1
            where.setdefault(cause, []).append(r.name)
    lines = ["| cause | programs | which |", "|---|---|---|"]
    for cause, n in count.most_common():
        lines.append(f"| {_cell(cause)} | {n} | {', '.join(where[cause])} |")
    return "\n".join(lines)


def slow_list(rows: list) -> str:
    slow = sorted(
        (r for r in rows if r.ratio is not None and r.ratio < SLOW), key=lambda r: r.ratio
    )
    out = []
    for r in slow:
        d = r.diagnosis
        out.append(
            f"- **{r.name}** {r.ratio:.2f}× ({fmt_time(r.plain)} plain, "
            f"{fmt_time(r.compiled)} compiled); regions: {d.regions or '?'}"
        )
        out += [f"  - {_cell(text)}" for text in d.breaks]
        out += [f"  - loop in Python, {text}" for text in d.loops]
        if r.profile:
            out.append("  - profile (own time): " + "; ".join(r.profile))
    return "\n".join(out) or "None."


def markdown(rows: list) -> str:
    return "\n\n".join(
        [
            table(rows),
            summary(rows),
            "### What broke, by how many programs it broke\n\n" + causes(rows),
            f"### Programs slower than {SLOW}× plain\n\n" + slow_list(rows),
        ]
    )


def write_section(path: str, text: str) -> None:
    """Replace the section (up to the next ``## `` heading) or append it; keep the rest."""
    page = "# Benchmarks\n"
    if os.path.exists(path):
        with open(path) as f:
            page = f.read()
    head, _, rest = page.partition(SECTION)
    tail = rest.partition("\n## ")
    after = f"\n## {tail[2]}" if tail[1] else ""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{head.rstrip()}\n\n{INTRO}{text}\n{after}")
    os.replace(tmp, path)
