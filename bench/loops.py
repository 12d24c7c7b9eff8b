"""``python -m bench.loops [--quick] [--only TEXT] [--write-docs]``: loop kernels, one run.

Per kernel: the time of the plain function under CPython + NumPy, the speedup of astcompile's C
backend and of Numba (``njit``, the same source) when installed, both first calls (compile
included, empty cache), and how the astcompile call ran (compiled, or the share left in NumPy).
torch.compile is not run here: it unrolls Python loops, and on these it takes tens of seconds
or gives up.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import astcompile
from astcompile.jit import tiering
from bench import measure, peers
from bench.loop_kernels import LOOP_CASES, LoopCase

DOCS = os.path.join(measure.ROOT, "docs", "benchmarks.md")
SECTION = "## Loop kernels"
INTRO = """## Loop kernels

Measured by `python -m bench.loops --write-docs` in one run. The baseline is the same function
run by CPython with NumPy; **numba** runs the same source under `njit` (where Numba rejects the
NumPy form, the loop a Numba user rewrites it into: see `bench/loop_kernels.py`). "first call"
includes compilation with an empty cache. "how it ran" comes from `astcompile.explain`:
*compiled* means no iteration ran in the interpreter. torch.compile is left out: it unrolls
Python loops and takes tens of seconds or gives up on these.

"""


def _timed_first(call: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


def steady_time(fn: Callable[[], Any]) -> float:
    """Best time of ``fn()`` over 0.3 s of calls, up to 2000 of them: a kernel of a few
    microseconds is timed at its steady state too, not over the first 50 calls (those run
    before the C-level call path is in place: 6.3 us against 3.4 us for a count over 65k
    floats)."""
    return measure.best_time(fn, max_reps=2000)


def run_case(case: LoopCase, quick: bool) -> dict:
    args = case.make(quick, np.random.default_rng(0))
    expected = case.fn(*args)
    row: dict[str, Any] = {"name": case.name, "numpy": steady_time(lambda: case.fn(*args))}
    compiled = astcompile.compile(case.fn, backend="c")
    result, row["astcompile first"] = _timed_first(lambda: compiled(*args))
    peers.check_result(expected, result)
    measure.until_built(compiled, lambda: compiled(*args))
    for _ in range(tiering.WARMUP_CALLS + 2 * tiering.ROUNDS):
        compiled(*args)  # past the first samples: three plain calls of 100 ms on a loaded
        # machine filled steady_time's 0.3 s, which then timed no steady call (0.1x Numba)
    row["astcompile"] = steady_time(lambda: compiled(*args))
    row["ran"] = _how_it_ran(case.fn, args)
    if importlib.util.find_spec("numba") is not None:
        row["numba"], row["numba first"] = _run_numba(case, args, expected)
    return row


def _how_it_ran(fn: Callable, args: list) -> str:
    report = astcompile.explain(astcompile.compile(fn, backend="c"), *args)
    if report.graph_break_count == 0 and report.eager_seconds == 0:
        return "compiled"
    share = 100 * report.eager_seconds / max(report.total_seconds, 1e-12)
    return f"{report.graph_break_count} break(s), {share:.0f}% in NumPy"


def _run_numba(case: LoopCase, args: list, expected: Any) -> tuple[float | None, float | None]:
    import numba

    kernel = numba.njit(cache=False)(case.numba_fn or case.fn)
    try:
        result, first = _timed_first(lambda: kernel(*args))
        peers.check_result(expected, result)
    except Exception as exc:  # noqa: BLE001 - a peer failing on a kernel is reported as n/a
        print(
            f"  numba n/a on {case.name}: {type(exc).__name__}: "
            f"{str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ''}",
            flush=True,
        )
        return None, None
    return steady_time(lambda: kernel(*args)), first


def format_table(rows: list[dict]) -> str:
    has_numba = any("numba" in r for r in rows)
    head = [
        "kernel",
        "Python + NumPy",
        "astcompile",
        *(["numba"] if has_numba else []),
        "first call astcompile",
        *(["first call numba"] if has_numba else []),
        "how it ran",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["name"], f"{r['numpy'] * 1e3:.2f} ms", _ratio(r, "astcompile")]
        cells += [_ratio(r, "numba")] if has_numba else []
        cells += [_ms(r.get("astcompile first"))]
        cells += [_ms(r.get("numba first"))] if has_numba else []
        lines.append("| " + " | ".join([*cells, r["ran"]]) + " |")
    return "\n".join(lines)


def _ratio(row: dict, key: str) -> str:
    t = row.get(key)
    return "n/a" if not t else f"**{row['numpy'] / t:.1f}×** ({t * 1e3:.2f} ms)"


def _ms(t: float | None) -> str:
    return "–" if t is None else f"{t * 1e3:.0f} ms"


def write_section(path: str, table: str) -> None:
    """Replace (or append) the loop section of the benchmarks page, keeping the rest."""
    text = "# Benchmarks\n"
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    head = text.split(SECTION)[0].rstrip("\n")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{head}\n\n{INTRO}{table}\n")
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.loops", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    parser.add_argument("--only", help="run only kernels whose name contains this text")
    parser.add_argument(
        "--write-docs", action="store_true", help=f"write the loop section of {DOCS}"
    )
    opts = parser.parse_args()
    cache = tempfile.TemporaryDirectory(prefix="astcompile-bench-")  # removed at exit
    astcompile.config.cache_dir = cache.name
    rows = []
    for case in LOOP_CASES:
        if opts.only and opts.only not in case.name:
            continue
        rows.append(run_case(case, opts.quick))
        print(format_table(rows[-1:]).splitlines()[-1], flush=True)
    table = format_table(rows)
    print()
    print(table)
    if opts.write_docs:
        write_section(DOCS, table)


if __name__ == "__main__":
    main()
