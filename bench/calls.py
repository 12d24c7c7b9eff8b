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

Last, tiny calls (scalar functions of about 0.1 µs, which measuring sends to the plain path)
called by position, by keyword and as a method: what a compiled function adds to each call over
calling the function itself, with the C call path (``runtime/fastcall_switch.c``, what a
process gets once the extension is in the cache) and without it (the function's class calls
the function: the first process on a machine, or no Python headers), in the same run.

Then small compiled calls: a function that is one loop region (``branchy_sum`` on 64
elements), whose compiled call is mostly fixed cost, timed as the plain function, the compiled
function as users get it (its call's own lines in C, ``runtime/fastcall_sole.c``), the same with
those lines in Python (``CompiledFunction.__call__``: what it cost before), a function made
before the C call path was loaded (a new user's first process: it runs them through its stand-in,
``jit/routes.py``), the region's C guard-and-run object alone, and Numba's ``@njit`` where
Numba is installed.

Last, the same loop with a parameter that has a default (``branchy_scaled(x, scale=1.0)``),
called by position, relying on the default and by keyword: plain, compiled (the call bound to
the region's arguments in C), the same function not taken as one region (what a function with
defaults cost before: every call through the rewritten function) and Numba.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import time
from collections.abc import Callable, Iterator
from unittest import mock

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


def norm(x, y, scale=1.0):
    return math.sqrt(x * x + y * y) * scale


def length(point, y):
    return math.sqrt(point.x * point.x + y * y)


def _point(method: Callable) -> object:
    return type("Point", (), {"x": 3.0, "length": method})()


def _positional(f: Callable, n: int) -> None:
    for _ in range(n):
        f(3.0, 4.0)


def _keyword(f: Callable, n: int) -> None:
    for _ in range(n):
        f(3.0, 4.0, scale=2.0)


def _method(obj: object, n: int) -> None:
    for _ in range(n):
        obj.length(4.0)


@contextlib.contextmanager
def _without_switch() -> Iterator[None]:
    """Functions compiled inside are made as if the C call path were not loaded."""
    from astcompile.runtime import fastcall

    with mock.patch.object(fastcall, "switch_type", lambda: None):
        yield


def _tiny_subjects(routed: bool) -> dict[str, object]:
    from astcompile.runtime import fastcall

    with contextlib.nullcontext() if routed else _without_switch():
        compiled = {style: astcompile.compile(norm, backend="c") for style in ("pos", "kw")}
        method = _point(astcompile.compile(length, backend="c"))
    assert routed == hasattr(compiled["pos"], "current_route"), fastcall.loaded()
    return {"pos": compiled["pos"], "kw": compiled["kw"], "method": method}


def _compiled(subject: object) -> astcompile.jit.function.CompiledFunction:
    """The compiled function a tiny-call subject calls (itself, or the Point's method)."""
    return getattr(type(subject), "__dict__", {}).get("length", subject)


def tiny_calls(rounds: int = 30, calls: int = 20_000) -> list[tuple[str, float, float, float]]:
    """(style, plain, class path, routed) seconds per call, after measuring chose plain."""
    from astcompile.runtime import fastcall

    astcompile.config.tiering = True
    fastcall.extension(astcompile.config.cache_dir)  # as a later process finds it
    loops = {"pos": _positional, "kw": _keyword, "method": _method}
    plain = {"pos": norm, "kw": norm, "method": _point(length)}
    sides = [plain, _tiny_subjects(False), _tiny_subjects(True)]
    for side in sides[1:]:
        for style, loop in loops.items():
            loop(side[style], 200)  # past the first comparison
            if not _compiled(side[style])._tier.plain:
                print(f"note: measuring runs {style} compiled: the row is not the plain path")
    best = [dict.fromkeys(loops, math.inf) for _ in sides]
    for _ in range(rounds):
        for side, found in zip(sides, best):
            for style, loop in loops.items():
                start = time.perf_counter()
                loop(side[style], calls)
                found[style] = min(found[style], (time.perf_counter() - start) / calls)
    names = {"pos": "norm(x, y)", "kw": "norm(x, y, scale=2.0)", "method": "point.length(y)"}
    return [(names[s], best[0][s], best[1][s], best[2][s]) for s in loops]


@contextlib.contextmanager
def _call_in_python() -> Iterator[None]:
    """Functions compiled inside run their call's own lines in Python (``__call__``)."""
    from astcompile.jit import routes, sole_region

    with mock.patch.object(sole_region, "finish", None), mock.patch.dict(routes._routed):
        routes._routed.clear()  # a routed class of its own, with no C finish
        yield


@contextlib.contextmanager
def _before_the_extension() -> Iterator[None]:
    """Functions compiled inside are made as in a process that has not loaded the C call path
    yet (a new user's first), which then loads it (as its background build ends)."""
    from astcompile.jit import routes
    from astcompile.runtime import fastcall

    with mock.patch.object(fastcall, "_state", {"looked": {astcompile.config.cache_dir}}):
        yield
    routes._take_c_paths()  # what the load tells


def _numba(fn: Callable) -> Callable | None:
    try:
        import numba
    except ImportError:
        return None
    return numba.njit(fn)


def small_sides() -> tuple[dict[str, Callable], np.ndarray]:
    """What ``small_calls`` times, by name, and the array it calls them with."""
    from astcompile.runtime import fastcall
    from bench.programs.branchy_sum import branchy_sum

    astcompile.config.tiering = True
    fastcall.extension(astcompile.config.cache_dir)  # as a later process finds it
    x = np.random.default_rng(0).random(64)
    compiled = astcompile.compile(branchy_sum, backend="c")
    with _call_in_python():
        in_python = astcompile.compile(branchy_sum, backend="c")
    with _before_the_extension():
        before = astcompile.compile(branchy_sum, backend="c")
    for fn in (compiled, in_python, before):
        for _ in range(20_000):  # past the first comparison (a compile in the background)
            fn(x)
            if fn._tier.choice is not None and fn._tier.countdown > 1:
                break
    sides = {"plain": branchy_sum, "compiled": compiled, "__call__ in Python": in_python}
    sides["made before the C call path was loaded"] = before
    sides["guards alone"] = compiled._sole_region.guards
    numba = _numba(branchy_sum)
    return (sides | {"Numba": numba} if numba else sides), x


def small_calls(rounds: int = 30, calls: int = 20_000) -> dict[str, float]:
    """Seconds per call of ``branchy_sum`` on 64 elements, by side (thread CPU time, best of
    ``rounds`` rounds interleaved)."""
    sides, x = small_sides()
    best = dict.fromkeys(sides, math.inf)
    for _ in range(rounds):
        for name, fn in sides.items():
            start = time.thread_time()
            for _ in range(calls):
                fn(x)
            best[name] = min(best[name], (time.thread_time() - start) / calls)
    return best


def branchy_scaled(x, scale=1.0):
    s = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        if v > 0.5:
            s += v * v * scale
        else:
            s -= v
    return s


def _by_position(f: Callable, x: np.ndarray, n: int) -> None:
    for _ in range(n):
        f(x, 2.0)


def _by_default(f: Callable, x: np.ndarray, n: int) -> None:
    for _ in range(n):
        f(x)


def _by_keyword(f: Callable, x: np.ndarray, n: int) -> None:
    for _ in range(n):
        f(x, scale=2.0)


BINDINGS = {"f(x, 2.0)": _by_position, "f(x)": _by_default, "f(x, scale=2.0)": _by_keyword}


def _settle(fn: Callable, x: np.ndarray) -> None:
    """Past the first comparison, called each way a row calls it."""
    for _ in range(20_000):
        for call in BINDINGS.values():
            call(fn, x, 1)
        if fn._tier.choice is not None and fn._tier.countdown > 3:
            break


def binding_sides() -> tuple[dict[str, Callable], np.ndarray]:
    """What ``binding_calls`` times, by name, and the array it calls them with."""
    from astcompile.jit import function
    from astcompile.runtime import fastcall

    astcompile.config.tiering = True
    fastcall.extension(astcompile.config.cache_dir)  # as a later process finds it
    x = np.random.default_rng(0).random(64)
    compiled = astcompile.compile(branchy_scaled, backend="c")
    _settle(compiled, x)
    with mock.patch.object(function, "is_sole_region", lambda source, region: False):
        whole = astcompile.compile(branchy_scaled, backend="c")
        _settle(whole, x)  # built here, on its first call
    numba = _numba(branchy_scaled)
    sides = {"plain": branchy_scaled, "compiled": compiled, "not one region": whole}
    return (sides | {"Numba": numba} if numba else sides), x


def binding_calls(rounds: int = 30, calls: int = 20_000) -> dict[str, dict[str, float]]:
    """Seconds per call of ``branchy_scaled`` on 64 elements, by call style and side (thread
    CPU time, best of ``rounds`` rounds interleaved)."""
    sides, x = binding_sides()
    best = {style: dict.fromkeys(sides, math.inf) for style in BINDINGS}
    for _ in range(rounds):
        for style, call in BINDINGS.items():
            for name, fn in sides.items():
                start = time.thread_time()
                call(fn, x, calls)
                best[style][name] = min(best[style][name], (time.thread_time() - start) / calls)
    return best


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
    print("\nTiny calls, once measuring chose plain: per call, and what the compiled function adds")
    print("| call | plain | without the C call path | with it |")
    print("|---|---|---|---|")
    for name, plain, by_class, routed in tiny_calls():
        print(
            f"| `{name}` | {plain * 1e9:.0f} ns | +{(by_class - plain) * 1e9:.0f} ns "
            f"(**{plain / by_class:.2f}×**) | +{(routed - plain) * 1e9:.0f} ns "
            f"(**{plain / routed:.2f}×**) |"
        )
    times = small_calls()
    print("\nSmall compiled calls: branchy_sum on 64 f64, per call, and plain time / its time")
    print("| side | per call | ratio |")
    print("|---|---|---|")
    for name, seconds in times.items():
        print(f"| {name} | {seconds * 1e9:.0f} ns | **{times['plain'] / seconds:.1f}×** |")
    styles = binding_calls()
    names = list(next(iter(styles.values())))
    print("\nCalls binding defaults and keywords: branchy_scaled on 64 f64, per call (vs plain)")
    print("| call | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for style, times in styles.items():
        cells = [f"{t * 1e9:.0f} ns (**{times['plain'] / t:.1f}×**)" for t in times.values()]
        print(f"| `{style}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
