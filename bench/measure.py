"""Timing helpers: best-of-N wall time, fresh-process first-call times, copy bandwidth."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best_time(fn: Callable[[], Any], min_time: float = 0.3, max_reps: int = 50) -> float:
    """Best wall time of ``fn()`` in seconds, repeated for about ``min_time`` seconds."""
    fn()
    best, spent, reps = float("inf"), 0.0, 0
    while reps < 3 or (spent < min_time and reps < max_reps):
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best, spent, reps = min(best, elapsed), spent + elapsed, reps + 1
    return best


#: Seconds of calls at most that bring a compiled function to its steady state before timing.
BUILD_WAIT = 60.0


def until_built(compiled: Any, call: Callable[[], Any]) -> int:
    """Steady state: ``call()`` (a call of ``compiled``), and wait for the background, until
    nothing of ``compiled`` is left to compile. ``background.wait()`` after the first call is
    not enough: a first call that spent the compile budget (a slow C compiler, a cold cache,
    a loaded machine) runs its regions as written, or the whole function on its waiting path,
    and traces them only once that time is paid for (``jit/budget.py``), some calls later; a
    timing before then timed the function as written (spring chain: 88-142 ms against 0.04;
    fdtd_1d with a cold cache: 0.66-1.0x plain, 7-15x once compiled). Done after a call that
    waited for nothing: the function off its waiting path, and none of its regions ran as
    written for want of compiled code (the budget's ``waited`` did not grow; a region that
    failed for good runs as written without waiting). Returns the calls made before it."""
    from astcompile.jit import background

    budget = getattr(compiled, "budget", None)  # none: a wrapper of ours, not compiled
    deadline, calls = time.perf_counter() + BUILD_WAIT, 0
    while time.perf_counter() < deadline:
        background.wait()
        waited = budget.waited if budget is not None else 0.0
        call()
        if budget is None or (compiled.waiting is None and budget.waited == waited):
            break
        calls += 1
    background.wait()
    return calls


def per_call_time(fn: Callable[[], Any], calls: int = 20000) -> float:
    fn()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


# NumPy's import and the inputs are the baseline; astcompile's own import is part of the cost.
_CHILD = """
import json, sys, time
import numpy as np
from bench.kernels import CASES
case = CASES[{index}]
args = case.make({quick}, np.random.default_rng(0))
t0 = time.perf_counter()
import astcompile
t1 = time.perf_counter()
fn = astcompile.compile(case.fn, backend="c")
fn(*args)
t2 = time.perf_counter()
print(json.dumps({{"first_call": t2 - t1, "import": t1 - t0, "total": t2 - t0}}))
"""


def fresh_process_first_call(index: int, quick: bool, cache_dir: str) -> float:
    """Seconds from ``import astcompile`` to the first result in a new process on ``cache_dir``."""
    env = dict(os.environ, ASTCOMPILE_CACHE_DIR=cache_dir, PYTHONPATH=ROOT)
    # An installed package has its bytecode compiled; a sandbox that forbids writing it would
    # make every fresh process compile astcompile's ~150 modules from source again.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    code = _CHILD.format(index=index, quick=quick)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])["total"]


def cold_and_warm(index: int, quick: bool) -> tuple[float, float]:
    """(first call with an empty cache, first call in another process with the cache warm)."""
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")
        cold = fresh_process_first_call(index, quick, cache)
        warm = fresh_process_first_call(index, quick, cache)
    return cold, warm


def copy_bandwidth(n: int) -> float:
    """GB/s (read + write) of a parallel float32 copy of ``n`` elements, built from kernels/."""
    from astcompile import config
    from astcompile.runtime import load_library, nthreads

    with open(os.path.join(ROOT, "kernels", "copy.c")) as f:
        source = f.read()
    ffi, lib = load_library(
        source, "void astc_copy_f32(int64_t, const void*, void*, int64_t);", config.cache_dir
    )
    src = np.ones(n, np.float32)
    dst = np.empty_like(src)
    p_src, p_dst = ffi.from_buffer(src), ffi.from_buffer(dst)
    t = best_time(lambda: lib.astc_copy_f32(nthreads(), p_src, p_dst, n))
    return 2 * src.nbytes / t / 1e9
