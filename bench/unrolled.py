"""``python -m bench.unrolled``: first calls of Python iteration the trace copies per item.

A comprehension or generator over ``n`` items (``[x[i:i + k].mean() for i in range(n)]``) is
run as Python by the tracer, one copy of its line per item; before the per-line budget
(trace/context.py, ``LINE_BUDGET``) every copy fused into one C kernel. Each case runs in a new
process on an empty cache, with the budget (now) and without it (before, ``LINE_BUDGET`` set to
infinity): the compiled first call against the plain first call, in seconds; a first call still
building after ``--limit`` seconds is cut off (``>limit``). A ``for`` loop over a fixed range
is in the table as the shape that was already a loop (the same either way).
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
    "for loop (range(200))": (windowed_sum, lambda n: (np.arange(210.0),)),
}
SIZES = {"window_means": (8, 16, 32), "row_sums": (16, 64), "windowed_max_total": (64, 200)}

_CHILD = """
import json, time
import numpy as np
import astcompile
from astcompile.trace import context
from bench.unrolled import CASES
if {before}:
    context.LINE_BUDGET = (float("inf"), float("inf"))
fn, make = CASES[{name!r}]
args = make({n})
t = time.perf_counter(); fn(*args); plain = time.perf_counter() - t
t = time.perf_counter(); astcompile.compile(fn, backend="c")(*args); first = time.perf_counter() - t
print(json.dumps([first, plain]))
"""


def _first_call(name: str, n: int, before: bool, limit: float) -> tuple[float, float] | None:
    """(compiled first call, plain first call) in a new process, None past ``limit``."""
    env = dict(os.environ, ASTCOMPILE_COMPILE_BUDGET="inf", PYTHONPATH=str(ROOT))
    code = _CHILD.format(name=name, n=n, before=before)
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
    first, plain = json.loads(done.stdout.decode().splitlines()[-1])
    return first, plain


def _cell(result: tuple[float, float] | None, limit: float) -> str:
    return f">{limit:.0f}" if result is None else f"{result[0]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per first call")
    limit = parser.parse_args().limit
    print(f"{'case':24s} {'n':>5s} {'before s':>9s} {'now s':>7s} {'plain ms':>9s}")
    for name in CASES:
        for n in SIZES.get(name, (200,)):
            before = _first_call(name, n, True, limit)
            now = _first_call(name, n, False, limit)
            plain = now[1] * 1e3 if now else float("nan")
            print(
                f"{name:24s} {n:5d} {_cell(before, limit):>9s} {_cell(now, limit):>7s} "
                f"{plain:9.3f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
