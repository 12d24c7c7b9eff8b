"""``python -m bench.first_calls``: what the first calls of small functions cost, in new processes.

Each case runs in a new process on an empty cache ("cold"), then in another on the cache the
first left ("warm", as a program's second run finds it): ``import astcompile``, then the
compiled function's first and second calls, against the plain function's first and second
calls in the same process (NumPy is imported before either). The cold row also gives the
compile stages of the first call (``astcompile.compile_times()``, largest first); the warm row
says whether the process imported the code generator or libcst at all.

What we hold these to (issue 26): a 3-line function's cold first call within 0.3 s, the analysis
of a 10-line function within 30 ms, and the warm process's first and second calls within 25 ms
each, without the code generator. Bytecode is written as an installed package has it (a
sandbox that forbids writing it makes every process compile astcompile's modules again).

Then the per-call floor, also in new processes (cold, then warm): what a compiled function adds
to each call of a tiny function over calling the function itself, once measuring chose the plain
path, and what a function given to ``astcompile.disable`` adds (both held to 30 ns). The cold
process waits for the C call path's background build, as a process that runs long enough does,
so that the warm one finds it. Then a first call whose C compiler is slow (it sleeps a second
first, as a big program or a loaded machine makes it): the call waits for the build only as
long as the compile budget has left (docs/api.md), and the plain calls made while that build
goes on in the background, against the same calls after it. Last, every floor against its bar.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

from bench.measure import ROOT

_CHILD = """
import json, sys, time
import numpy as np
from bench.first_calls import CASES
fn, make = CASES[{name!r}]
args = make()
t = time.perf_counter(); fn(*args); plain_first = time.perf_counter() - t
t = time.perf_counter(); fn(*args); plain_second = time.perf_counter() - t
t0 = time.perf_counter()
import astcompile
t1 = time.perf_counter()
compiled = astcompile.compile(fn, backend="c")
t2 = time.perf_counter(); compiled(*args); t3 = time.perf_counter(); compiled(*args)
t4 = time.perf_counter()
heavy = [m for m in ("astcompile.targets.c.c_kernel", "libcst") if m in sys.modules]
print(json.dumps({{"import": t1 - t0, "first": t3 - t2, "second": t4 - t3,
                  "plain_first": plain_first, "plain_second": plain_second,
                  "stages": astcompile.compile_times(), "heavy": heavy}}))
"""


def axpy(a, x, y):
    return a * x + y


def logistic(x, w, b):
    """Ten lines of the kind users write: a few temporaries, a static branch, a reduction."""
    z = x * w + b
    if z.ndim == 1:
        z = z - z.mean()
    e = np.exp(-z)
    p = 1.0 / (1.0 + e)
    q = 1.0 - p
    loss = -(np.log(p + 1e-12) + np.log(q + 1e-12))
    scale = 1.0 / loss.size
    return loss.sum() * scale, p


def _vectors(n: int = 1000) -> tuple:
    rng = np.random.default_rng(0)
    return 2.0, rng.random(n), rng.random(n)


CASES = {"axpy (3 lines)": (axpy, _vectors), "logistic (10 lines)": (logistic, _vectors)}
#: Stages a function's own analysis takes (``frontend`` is libcst's import, once per process).
ANALYSIS = ("source", "analysis", "rewrite", "materialise")

_FLOOR_CHILD = """
import json
import astcompile
from astcompile.runtime import fastcall
from bench.first_calls import norm, per_call
compiled, disabled = astcompile.compile(norm, backend="c"), astcompile.disable(norm)
for _ in range(200):  # past the first comparison
    compiled(3.0, 4.0)
best = per_call([norm, compiled, disabled])
building = fastcall._state.get("building")
if building is not None:
    building.join()
print(json.dumps({"plain": best[0], "tiered": best[1], "disabled": best[2],
                  "path": "plain" if compiled._tier.plain else "compiled",
                  "switch": hasattr(compiled, "current_route")}))
"""

_SLOW_CHILD = """
import json, time
import astcompile
from astcompile.jit import background
from bench.first_calls import axpy, logistic, _vectors, plain_calls
args = _vectors()
astcompile.compile(axpy, backend="c")(*args)  # the analysis and the tracer imported
compiled = astcompile.compile(logistic, backend="c")
start = time.perf_counter()
compiled(*args)
first = time.perf_counter() - start
during = plain_calls(args, lambda n: background._jobs.unfinished_tasks == 0)
background.wait()
after = plain_calls(args, lambda n: n >= during[1])
print(json.dumps({"first": first, "during": during[0], "after": after[0], "calls": during[1],
                  "budget": astcompile.config.compile_budget}))
"""


def plain_calls(args: tuple, done: Callable[[int], bool]) -> tuple[float, int]:
    """(seconds per call, calls) of plain ``axpy`` on ``args``, called until ``done(calls)``."""
    calls, start = 0, time.perf_counter()
    while not done(calls) or calls == 0:
        axpy(*args)
        calls += 1
    return (time.perf_counter() - start) / calls, calls


def slow_compiler() -> dict:
    """A first call whose C compiler takes a second more than gcc, on a cold cache."""
    with tempfile.TemporaryDirectory() as tmp:
        cc = os.path.join(tmp, "slow-cc")
        with open(cc, "w") as f:
            f.write('#!/bin/sh\nsleep 1\nexec gcc "$@"\n')
        os.chmod(cc, 0o755)
        return _child(_SLOW_CHILD, os.path.join(tmp, "cache"), CC=cc)


def norm(x, y):
    return (x * x + y * y) ** 0.5


def per_call(fns: list, rounds: int = 30, calls: int = 20_000) -> list[float]:
    """Best seconds per call of each of ``fns`` (rounds interleaved: load hurts all alike)."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(calls):
                fn(3.0, 4.0)
            best[i] = min(best[i], (time.perf_counter() - start) / calls)
    return best


def run(name: str, cache_dir: str) -> dict:
    return _child(_CHILD.format(name=name), cache_dir)


def _child(code: str, cache_dir: str, **more: str) -> dict:
    env = dict(os.environ, ASTCOMPILE_CACHE_DIR=cache_dir, PYTHONPATH=ROOT, **more)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


def _stages(stages: dict[str, float], top: int = 5) -> str:
    largest = sorted(stages.items(), key=lambda kv: -kv[1])[:top]
    return ", ".join(f"{k} {_ms(v)}" for k, v in largest)


def floors() -> list[dict]:
    """The per-call floor in a cold process, then in a warm one on the cache it left."""
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")
        return [_child(_FLOOR_CHILD, cache), _child(_FLOOR_CHILD, cache)]


def _ns(seconds: float) -> str:
    return f"{seconds * 1e9:+.0f} ns"


def _bars(runs: dict[str, dict], floor: list[dict], slow: dict) -> list[tuple[str, str, str]]:
    """(floor, bar, measured) for each of issue 26's floors."""
    axpy, logistic = runs["axpy (3 lines)"], runs["logistic (10 lines)"]
    analysis = sum(logistic["cold"]["stages"].get(k, 0.0) for k in ANALYSIS)
    warm = [r["warm"] for r in runs.values()]
    rows = [
        ("cold first call, axpy", "<= 300 ms", _ms(axpy["cold"]["first"])),
        ("analysis, logistic (" + ", ".join(ANALYSIS) + ")", "<= 30 ms", _ms(analysis)),
        ("warm first call (worst)", "<= 25 ms", _ms(max(r["first"] for r in warm))),
        ("warm second call (worst)", "<= 25 ms", _ms(max(r["second"] for r in warm))),
        ("warm process imported", "neither", ", ".join(m for r in warm for m in r["heavy"])),
    ]
    for kind, r in zip(("cold", "warm"), floor):
        how = f"{r['path']} path, {'C' if r['switch'] else 'class'} call path"
        rows.append(
            (f"plain-path overhead, {kind} ({how})", "<= +30 ns", _ns(r["tiered"] - r["plain"]))
        )
        rows.append((f"disabled overhead, {kind}", "<= +30 ns", _ns(r["disabled"] - r["plain"])))
    budget = f"<= {slow['budget'] * 1e3:.0f} ms (the budget) + plain"
    rows.append(("first call, compiler 1 s slower (logistic)", budget, _ms(slow["first"])))
    ratio = f"x{slow['during'] / slow['after']:.2f} over {slow['calls']} calls"
    if slow["calls"] < 2:
        ratio = "none: the build was done when the call returned"
    rows.append(("plain calls while that build runs, vs after", "x1", ratio))
    return rows


def main() -> None:
    print("| function | cache | import | first call | second call | plain first, second |")
    print("|---|---|---|---|---|---|")
    notes = []
    everything: dict[str, dict] = {}
    for name in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            cache = os.path.join(tmp, "cache")
            runs = {"cold": run(name, cache), "warm": run(name, cache)}
        for kind, r in runs.items():
            print(
                f"| {name} | {kind} | {_ms(r['import'])} | {_ms(r['first'])} | "
                f"{_ms(r['second'])} | {_ms(r['plain_first'])}, {_ms(r['plain_second'])} |"
            )
        notes.append(f"{name}, cold first call: {_stages(runs['cold']['stages'])}")
        heavy = runs["warm"]["heavy"]
        notes.append(f"{name}, warm process imported: {', '.join(heavy) if heavy else 'neither'}")
        everything[name] = runs
    print()
    print("\n".join(f"- {n}" for n in notes))
    floor = floors()
    plain = floor[-1]["plain"]
    print(f"\nFloors (issue 26); the tiny function takes {plain * 1e9:.0f} ns called directly")
    print("| floor | bar | measured |\n|---|---|---|")
    for what, bar, measured in _bars(everything, floor, slow_compiler()):
        print(f"| {what} | {bar} | {measured or 'neither'} |")


if __name__ == "__main__":
    main()
