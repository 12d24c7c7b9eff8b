"""``python -m bench.total_time``: what a user's whole run costs, compiling included.

Code written the way people write it for other compilers (lists filled in loops, a list-of-lists
matrix product, a Python loop around NumPy statements, recursion), each timed in a new process
on an empty cache, compiled and plain in the same process: the first call, the first 10 calls
together (what a short run pays, compiling included), and the steady state (the best of a few
calls after 40 more). Ratios are plain time over compiled time: above 1 the compiled function
is faster, below 1 slower.

``--budget SECONDS`` sets ``ASTCOMPILE_COMPILE_BUDGET`` (``inf``: everything compiles on the
first calls, the behaviour before the budget); ``--python PATH`` runs the children with
another interpreter (another checkout's astcompile, for a before/after table in one run).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

import numpy as np

# -- the programs, as their authors wrote them ---------------------------------------------------


def fill(out, n):
    for i in range(n):
        out[i] = i * 2.0
    return out


def matmul(a, b):
    n, m, p = len(a), len(b), len(b[0])
    new_matrix = [[0 for _ in range(p)] for _ in range(n)]
    for i in range(n):
        for j in range(p):
            r = 0
            for k in range(m):
                r += a[i][k] * b[k][j]
            new_matrix[i][j] = r
    return new_matrix


def gradient_step(dg, w, x, lr, n):
    for i in range(n):
        dg[i] = dg[i] + (w[i] * x[i] - 1.0) * x[i]
        w[i] = w[i] - lr * dg[i]
    return w


def noisy_relax(u, steps):
    for _ in range(steps):
        jitter = random.random() * 1e-3  # a call the compiler leaves to Python: the loop too
        u[1:-1] = 0.5 * (u[:-2] + u[2:]) + jitter
    return u


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def _matrices():
    rng = random.Random(1)
    a = [[rng.random() for _ in range(40)] for _ in range(60)]
    b = [[rng.random() for _ in range(60)] for _ in range(40)]
    return a, b


CASES = {
    "fill a list (1000)": (fill, lambda: ([0] * 1000, 1000)),
    "list-of-lists matmul 60x40x60": (matmul, _matrices),
    "dg[i] = dg[i] + ... (500)": (
        gradient_step,
        lambda: ([0] * 500, [0.5] * 500, [0.1 * i for i in range(500)], 0.01, 500),
    ),
    "Python loop around NumPy (200 steps)": (noisy_relax, lambda: (np.linspace(0, 1, 2000), 200)),
    "recursion fib(18)": (fib, lambda: (18,)),
}

# -- one case in a child process -------------------------------------------------------------


def _times(fn, make, calls: int) -> list[float]:
    out = []
    for _ in range(calls):
        args = make()
        start = time.perf_counter()
        fn(*args)
        out.append(time.perf_counter() - start)
    return out


def child(name: str) -> dict:
    import astcompile

    fn, make = CASES[name]
    plain = _times(fn, make, 10) + _times(fn, make, 40)
    compiled = astcompile.compile(fn)
    timed = _times(compiled, make, 10) + _times(compiled, make, 40)
    return {
        "plain": [plain[0], sum(plain[:10]), min(plain[-10:])],
        "compiled": [timed[0], sum(timed[:10]), min(timed[-10:])],
        "compile": sum(astcompile.compile_times().values()),
    }


def run(name: str, budget: str, python: str, timeout: float, tmp: str) -> dict | None:
    """One case in a new process on the cache in ``tmp``; None past ``timeout`` seconds."""
    env = dict(os.environ, ASTCOMPILE_CACHE_DIR=os.path.join(tmp, "cache"))
    env["ASTCOMPILE_COMPILE_BUDGET"] = budget
    env.pop("PYTHONPATH", None)  # the children import ``python``'s own astcompile
    code = (
        "import importlib.util, json, sys\n"
        f"spec = importlib.util.spec_from_file_location('total_time', {__file__!r})\n"
        "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        f"print(json.dumps(mod.child({name!r})))\n"
    )
    try:
        out = subprocess.run(
            [python, "-c", code],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp,
            check=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def _t(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} µs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", action="append", help="compile budget(s), e.g. 0.5, inf")
    parser.add_argument("--python", default=sys.executable, help="interpreter of the children")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per program")
    options = parser.parse_args()
    budgets = options.budget or ["0.5", "inf"]
    print(
        "| program | budget | cache | first call plain / compiled | ratio "
        "| first 10 calls ratio | steady ratio | compiling |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in CASES:
        for budget in budgets:
            with tempfile.TemporaryDirectory() as tmp:  # cold, then warm on what cold left
                for cache in ("cold", "warm"):
                    found = run(name, budget, options.python, options.timeout, tmp)
                    _row(name, budget, cache, found)


def _row(name: str, budget: str, cache: str, r: dict | None) -> None:
    if r is None:
        print(f"| {name} | {budget} | {cache} | did not finish |||||")
        return
    (p1, p10, ps), (c1, c10, cs) = r["plain"], r["compiled"]
    print(
        f"| {name} | {budget} | {cache} | {_t(p1)} / {_t(c1)} | {p1 / c1:.3f} "
        f"| {p10 / c10:.3f} | {ps / cs:.2f} | {_t(r['compile'])} |"
    )


if __name__ == "__main__":
    main()
