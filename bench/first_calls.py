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
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

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
heavy = [m for m in ("astcompile.codegen.c_kernel", "libcst") if m in sys.modules]
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


def run(name: str, cache_dir: str) -> dict:
    env = dict(os.environ, ASTCOMPILE_CACHE_DIR=cache_dir, PYTHONPATH=ROOT)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD.format(name=name)],
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


def main() -> None:
    print("| function | cache | import | first call | second call | plain first, second |")
    print("|---|---|---|---|---|---|")
    notes = []
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
    print()
    print("\n".join(f"- {n}" for n in notes))


if __name__ == "__main__":
    main()
