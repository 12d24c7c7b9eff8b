"""``python -m bench [--quick] [--write-docs]``: NumPy vs astcompile (and peers), one run.

Per kernel: NumPy time, the speedup of astcompile's C backend and of Numba / torch.compile when
installed, the first call with an empty cache (compile included, in a fresh process) and the
first call in a fresh process with the disk cache warm. Also the parallel copy bandwidth, the
ceiling for memory-bound kernels.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time

import numpy as np

import astcompile
from bench import measure, peers
from bench.kernels import CASES

DOCS = os.path.join(measure.ROOT, "docs", "benchmarks.md")
FIRST_CALLS = """

First call in the bench process, compile included (the kernels run one after another in one
process, so only the first one pays astcompile's and the peers' imports):

"""


def run_case(index: int, quick: bool, with_fresh: bool) -> dict:
    case = CASES[index]
    args = case.make(quick, np.random.default_rng(0))
    small = "overhead" in case.name
    timer = measure.per_call_time if small else measure.best_time
    row = {"name": case.name, "numpy": timer(lambda: case.fn(*args))}
    compiled = astcompile.compile(case.fn, backend="c")
    start = time.perf_counter()
    compiled(*args)
    row["astcompile first"] = time.perf_counter() - start
    row["astcompile"] = timer(lambda: compiled(*args))
    expected = case.fn(*args)
    for peer, prepare in peers.available().items():
        row[peer], row[f"{peer} first"] = run_peer(peer, prepare, case, args, expected, timer)
    if with_fresh:
        row["cold"], row["warm"] = measure.cold_and_warm(index, quick)
    return row


def run_peer(name: str, prepare: peers.Prepare, case, args: list, expected, timer) -> tuple:
    """(steady-state seconds, first call seconds) of one peer on one case; (None, None) with
    the reason printed when the peer cannot compile the kernel or gets a different answer."""
    try:
        start = time.perf_counter()
        call = prepare(case.fn, args)
        result = call()  # the first call compiles
        first = time.perf_counter() - start
        peers.check_result(expected, result)
        return timer(call), first
    except Exception as exc:  # noqa: BLE001 - a peer failing on a kernel is reported as n/a
        reason = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
        print(f"  {name} n/a on {case.name}: {type(exc).__name__}: {reason}", flush=True)
        return None, None


def format_table(rows: list[dict], peer_names: list[str]) -> str:
    head = [
        "kernel",
        "NumPy",
        "astcompile",
        *peer_names,
        "first call",
        "warm cache, new process (import astcompile → result)",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        unit, scale = ("µs", 1e6) if "overhead" in r["name"] else ("ms", 1e3)
        cells = [
            r["name"],
            f"{r['numpy'] * scale:.2f} {unit}",
            _ratio(r, "astcompile", scale, unit),
        ]
        cells += [_ratio(r, p, scale, unit) for p in peer_names]
        cells += [_ms(r.get("cold")), _ms(r.get("warm"))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_first_calls(rows: list[dict], peer_names: list[str]) -> str:
    """First call in the bench process, compile included, for astcompile and each peer."""
    head = ["kernel", "astcompile", *peer_names]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [_ms(r.get(f"{name} first")) for name in ["astcompile", *peer_names]]
        lines.append("| " + " | ".join([r["name"], *cells]) + " |")
    return "\n".join(lines)


def _ratio(row: dict, key: str, scale: float, unit: str) -> str:
    t = row.get(key)
    if not t:
        return "n/a"
    return f"**{row['numpy'] / t:.1f}×** ({t * scale:.2f} {unit})"


def _ms(t: float | None) -> str:
    return "–" if t is None else f"{t * 1e3:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller inputs, fewer repetitions")
    parser.add_argument("--no-fresh", action="store_true", help="skip the fresh-process timings")
    parser.add_argument("--only", help="run only kernels whose name contains this text")
    parser.add_argument("--write-docs", action="store_true", help=f"write {DOCS}")
    opts = parser.parse_args()
    # An empty kernel cache, so that the in-process first calls include compilation.
    cache = tempfile.TemporaryDirectory(prefix="astcompile-bench-")  # removed at exit
    astcompile.config.cache_dir = cache.name
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(
        cache.name, "inductor"
    )  # the same for torch
    start = time.perf_counter()
    rows = []
    for index, case in enumerate(CASES):
        if opts.only and opts.only not in case.name:
            continue
        rows.append(run_case(index, opts.quick, not opts.no_fresh))
        print(format_table(rows[-1:], list(peers.available())).splitlines()[-1], flush=True)
    bandwidth = measure.copy_bandwidth(1 << (20 if opts.quick else 24))
    names = list(peers.available())
    table = format_table(rows, names) + FIRST_CALLS + format_first_calls(rows, names)
    info = (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"NumPy {np.__version__}; parallel float32 copy: {bandwidth:.1f} GB/s; "
        f"peers installed: {', '.join(peers.available()) or 'none'}; "
        f"total bench time {time.perf_counter() - start:.0f} s"
    )
    print()
    print(table)
    print(info)
    if opts.write_docs:
        from bench.report import write_docs

        write_docs(DOCS, table, info, rows)


if __name__ == "__main__":
    main()
