"""``python -m bench.reads``: what reading attributes, globals and closure cells at every call
costs a compiled function (see "What a region reads" in docs/api.md).

The same small computation is compiled four ways: its values passed as arguments, read as
attributes of ``self``, read as module globals, and read from a closure. The differences to the
argument version are the cost of the reads (follow the path, check the value's type). The plain
NumPy call is measured in the same run; on 8 elements the fixed cost of a compiled call shows,
on 1M elements the kernel does.
"""

from __future__ import annotations

import argparse

import numpy as np

import astcompile
from bench.measure import best_time, per_call_time

S, B = 2.0, 1.0


class Affine:
    def __init__(self) -> None:
        self.s, self.b = 2.0, 1.0

    def forward(self, x):
        return x * self.s + self.b


def by_arguments(x, s, b):
    return x * s + b


def by_globals(x):
    return x * S + B


def make_closure():
    s, b = 2.0, 1.0

    def by_closure(x):
        return x * s + b

    return by_closure


def small_affine(a):
    return a * 2.0 + 1.0


def cases(x: np.ndarray) -> list[tuple[str, object, tuple]]:
    obj, closure = Affine(), make_closure()
    return [
        ("constants (a * 2.0 + 1.0)", small_affine, (x,)),
        ("arguments (x, s, b)", by_arguments, (x, 2.0, 1.0)),
        ("attributes (self.s, self.b)", Affine.forward, (obj, x)),
        ("globals (S, B)", by_globals, (x,)),
        ("closure cells (s, b)", closure, (x,)),
    ]


def run(size: int) -> list[tuple[str, float, float]]:
    x = np.linspace(0.0, 1.0, size)
    timer = per_call_time if size <= 1024 else best_time
    rows = []
    for name, fn, args in cases(x):
        compiled = astcompile.compile(fn, backend="c")
        plain = timer(lambda fn=fn, args=args: fn(*args))
        ours = timer(lambda compiled=compiled, args=args: compiled(*args))
        rows.append((name, plain, ours))
    return rows


def guard_cost() -> tuple[float, float]:
    """Seconds per call of the generated guard functions alone (the kernel replaced by a no-op)
    for ``forward(self, x)`` reading ``self.s, self.b`` and for ``by_arguments(x, s, b)``: their
    difference is what the reads cost, free of the kernel's noise."""
    import dataclasses

    from astcompile.jit.entries import specialised_guards
    from astcompile.jit.regions import RegionStats

    x, obj = np.linspace(0.0, 1.0, 8), Affine()
    timings = []
    for fn, args in (
        (Affine.forward, {"self": obj, "x": x}),
        (by_arguments, {"x": x, "s": 2.0, "b": 1.0}),
    ):
        compiled = astcompile.compile(fn, backend="c")
        compiled(*args.values())
        region = compiled.regions[0]
        entry = next(iter(region.entries.values()))[0]
        guards = specialised_guards(
            "bench",
            region.names,
            [dataclasses.replace(entry, run=lambda leaves: ())],
            compiled.fn,
            RegionStats(),
        )
        ordered = [args[name] for name in region.names]
        timings.append(per_call_time(lambda g=guards, a=ordered: g(*a), calls=100000))
    return timings[0], timings[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[8, 1 << 20])
    options = parser.parse_args()
    for size in options.sizes:
        print(f"\n{size} elements (per call; speedup = NumPy / astcompile)")
        print(f"{'values read as':<30} {'NumPy':>10} {'astcompile':>11} {'speedup':>8}")
        rows = run(size)
        for name, plain, ours in rows:
            print(f"{name:<30} {plain * 1e6:>8.2f}us {ours * 1e6:>9.2f}us {plain / ours:>7.2f}x")
        base = rows[1][2]
        extra = ", ".join(
            f"{name.split(' (')[0]} {(ours - base) * 1e6:+.2f}us" for name, _, ours in rows[2:]
        )
        print(f"cost of the reads against passing arguments: {extra}")
    reads, arguments = guard_cost()
    print(
        f"\nguard checks alone: self.s, self.b read {reads * 1e9:.0f} ns, s, b passed "
        f"{arguments * 1e9:.0f} ns: the two reads cost {(reads - arguments) * 1e9:.0f} ns a call"
    )


if __name__ == "__main__":
    main()
