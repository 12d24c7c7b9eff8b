"""``python -m bench.calls``: the cost of calling compiled code where there is little to compile.

Three cases where the fixed cost of a compiled call (guards, marshalling, boxing) is larger
than the work, each timed in one run as NumPy / the plain function, the compiled path forced
(``config.tiering = False``), and the compiled function as users get it (measuring, then
running the faster path; see "Measure, then choose" in docs/api.md):

- an 8-element ``a * b + c``;
- a 10,000-iteration Python loop (kept in Python by a ``set``) calling one small region;
- ``axpy`` on 100 elements.

Ratios are plain time / compiled time: above 1 the compiled function is faster.

Then the floor: the 8-element case, once measuring has chosen, against calling the function
directly (rounds interleaved, best round each, so that a busy machine hurts both sides alike);
the line says which path measuring chose.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import astcompile
from bench.measure import best_time, per_call_time


def fma8(a, b, c):
    return a * b + c


def walk(pos, steps):
    seen = set()
    for i in range(steps.shape[0]):
        pos = pos + steps[i] * 0.5
        seen.add(round(float(pos[0]), 3))
    return pos, len(seen)


def axpy(alpha, x, y):
    return alpha * x + y


def _cases(quick: bool) -> list[tuple[str, object, tuple, bool]]:
    rng = np.random.default_rng(0)
    steps = rng.standard_normal((2_000 if quick else 10_000, 3))
    return [
        ("a * b + c (8 f64)", fma8, tuple(rng.random(8) for _ in range(3)), True),
        (f"Python loop, {steps.shape[0]} region calls", walk, (np.zeros(3), steps), False),
        ("axpy (100 f64)", axpy, (2.0, rng.random(100), rng.random(100)), True),
    ]


def _time(fn, args: tuple, small: bool) -> float:
    call = lambda: fn(*args)
    return per_call_time(call) if small else best_time(call)


def measure(quick: bool) -> list[tuple[str, float, float, float]]:
    rows = []
    for name, fn, args, small in _cases(quick):
        plain = _time(fn, args, small)
        astcompile.config.tiering = False
        forced = astcompile.compile(fn, backend="c")
        forced_s = _time(forced, args, small)
        astcompile.config.tiering = True
        tiered = astcompile.compile(fn, backend="c")
        for _ in range(64):  # past the first comparison
            tiered(*args)
        tiered_s = _time(tiered, args, small)
        rows.append((name, plain, forced_s, tiered_s))
    return rows


def floor(rounds: int = 40, calls: int = 10_000) -> tuple[float, float, str]:
    """(plain, tiered) seconds per call of ``fma8`` once measuring has chosen, and the path."""
    args = tuple(np.random.default_rng(0).random(8) for _ in range(3))
    astcompile.config.tiering = True
    tiered = astcompile.compile(fma8, backend="c")
    for _ in range(64):  # past the first comparison
        tiered(*args)
    best = {fma8: float("inf"), tiered: float("inf")}
    for _ in range(rounds):
        for fn in best:
            start = time.perf_counter()
            for _ in range(calls):
                fn(*args)
            best[fn] = min(best[fn], (time.perf_counter() - start) / calls)
    path = "plain" if tiered._tier.plain else "compiled"
    return best[fma8], best[tiered], path


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a shorter loop")
    quick = parser.parse_args().quick
    print("| case | plain | compiled path | ratio | as users get it | ratio |")
    print("|---|---|---|---|---|---|")
    for name, plain, forced, tiered in measure(quick):
        print(
            f"| {name} | {_fmt(plain)} | {_fmt(forced)} | **{plain / forced:.2f}×** | "
            f"{_fmt(tiered)} | **{plain / tiered:.2f}×** |"
        )
    plain, tiered, path = floor()
    print(
        f"\nFloor (a * b + c, 8 f64): {_fmt(plain)} calling the function, {_fmt(tiered)} "
        f"through the compiled function, which measuring runs {path} "
        f"({(tiered - plain) * 1e9:+.0f} ns)"
    )


if __name__ == "__main__":
    main()
