"""``python -m bench.unrolled``: comprehensions over many items, as a copy per item and as a loop.

A comprehension or generator over ``n`` items (``[x[i:i + k].mean() for i in range(n)]``) was
run as Python by the tracer, one copy of its line per item; past the per-line budget
(trace/context.py, ``LINE_BUDGET``: 12 reductions or 400 operations) its region ran as
written (GB021). A list comprehension of array work is now lowered to one loop appending to a
list, and ``sum``/``max``/``min``/``any``/``all`` of a generator to one loop with an
accumulator (frontend/comprehensions.py). Each case runs in a new process on an empty cache, twice in
the same run: "before" with the lowering off (``comprehensions.ENABLED = False``), "after" with
it on. Columns: the compiled first call (build included) in seconds, then steady state (best
call after 30 calls, when tiering has chosen) of the compiled function and of the plain one, in
microseconds. A ``for`` loop over a fixed range is in the table as a shape that was already a
loop.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from bench.measure import ROOT


def window_means(x, k):
    return [x[i : i + k].mean() for i in range(len(x) - k + 1)]


def row_sums(a):
    return [a[i].sum() for i in range(a.shape[0])]


def windowed_max_total(x, n):
    return sum(x[i : i + 3].max() for i in range(n))


def ssd(a, b):
    return sum((a[i] - b[i]) ** 2 for i in range(a.shape[0]))


def biggest_window(x, w):
    return max(x[i : i + w].sum() for i in range(len(x) - w + 1))


def any_neg(rows):
    return any(rows[i].min() < 0 for i in range(rows.shape[0]))


def windowed_sum(x):
    s = 0.0
    for i in range(200):
        s = s + x[i : i + 5].sum()
    return s


#: name -> (function, arguments for n items)
CASES = {
    "window_means": (window_means, lambda n: (np.arange(n + 4.0), 5)),
    "row_sums": (row_sums, lambda n: (np.ones((n, 100)),)),
    "windowed_max_total": (windowed_max_total, lambda n: (np.arange(n + 3.0), n)),
    "ssd": (ssd, lambda n: (np.arange(n, dtype=float), np.ones(n))),
    "biggest_window": (biggest_window, lambda n: (np.sin(np.arange(n + 4.0)), 5)),
    "any_neg": (any_neg, lambda n: (np.ones((n, 10)),)),
    "for loop (range(200))": (windowed_sum, lambda n: (np.arange(210.0),)),
}
SIZES = {
    "window_means": (16, 56, 500),
    "row_sums": (64,),
    "windowed_max_total": (200,),
    "ssd": (16, 1000),
    "biggest_window": (500,),
    "any_neg": (200,),
}

_CHILD = """
import json, time
import numpy as np
import astcompile
from astcompile.frontend import comprehensions
from bench.measure import best_time
from bench.unrolled import CASES
comprehensions.ENABLED = {after}
fn, make = CASES[{name!r}]
args = make({n})
fn(*args)
t = time.perf_counter(); compiled = astcompile.compile(fn, backend="c"); compiled(*args)
first = time.perf_counter() - t
for _ in range(30):
    compiled(*args)
steady = best_time(lambda: compiled(*args))
plain = best_time(lambda: fn(*args))
print(json.dumps([first, steady, plain]))
"""


def _measure(name: str, n: int, after: bool, limit: float) -> list[float] | None:
    """[compiled first call, compiled steady call, plain call] in seconds, in a new process;
    None past ``limit``."""
    env = dict(os.environ, ASTCOMPILE_COMPILE_BUDGET="inf", PYTHONPATH=str(ROOT))
    code = _CHILD.format(name=name, n=n, after=after)
    with tempfile.TemporaryDirectory() as cache:
        env["ASTCOMPILE_CACHE_DIR"] = cache
        try:
            done = subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, timeout=limit
            )
        except subprocess.TimeoutExpired:
            return None
    if done.returncode:
        raise RuntimeError(done.stderr.decode()[-2000:])
    return json.loads(done.stdout.decode().splitlines()[-1])


def _cells(result: list[float] | None, limit: float) -> str:
    if result is None:
        return f"{'>' + format(limit, '.0f'):>7s} {'':>9s}"
    return f"{result[0]:7.2f} {result[1] * 1e6:9.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per case")
    limit = parser.parse_args().limit
    print(
        f"{'case':22s} {'n':>4s} | {'before: first s':>15s} {'steady us':>9s} | "
        f"{'after: first s':>14s} {'steady us':>9s} | {'plain us':>9s} {'after x':>7s}"
    )
    for name in CASES:
        for n in SIZES.get(name, (200,)):
            before = _measure(name, n, False, limit)
            after = _measure(name, n, True, limit)
            plain = (after or before or [0, 0, float("nan")])[2]
            ratio = plain / after[1] if after else float("nan")
            print(
                f"{name:22s} {n:4d} | {_cells(before, limit):>25s} | "
                f"{_cells(after, limit):>24s} | {plain * 1e6:9.1f} {ratio:7.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
