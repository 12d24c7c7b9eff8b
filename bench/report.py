"""Write ``docs/benchmarks.md`` (and a PNG plot when matplotlib is installed)."""

from __future__ import annotations

import os

INTRO = """# Benchmarks

Measured by `python -m bench --write-docs` in one run on this machine: each cell is the speedup
over NumPy (higher is better) with the absolute time; "first call" is compile + run in a fresh
process with an empty disk cache, "warm cache" the same in another fresh process afterwards:
the time from `import astcompile` (NumPy already imported, inputs made) to the first result,
so astcompile's own import is included. A warm process loads the cached rewrite and region
entries: it imports neither libcst nor the code generator and runs no compiler.

Peers, measured in the same run when installed (`pip install astcompile[bench]` gives Numba and
matplotlib for the plot; torch is detected, never required): **numba** runs each kernel as a
Numba user writes it, loops with `prange` under `njit(parallel=True)` (`bench/numba_kernels.py`);
**torch.compile** runs the same math in PyTorch on tensors that share the NumPy inputs
(`bench/torch_kernels.py`). Each peer's answer is checked against NumPy before it is timed; a
peer that fails on a kernel shows "n/a" and the bench prints why. A second table gives the first
call in the bench process, compile included, for astcompile and each peer.

Build: gcc is called directly and the `.so` loaded with cffi's ABI mode (`ffi.dlopen`). cffi's
own `set_source`/`compile` (API mode) took 0.47 s for the 8-element kernel against 0.13 s for
gcc directly (0.44 s against 0.36 s for row softmax); an API-mode call is faster (0.85 µs
against 1.75 µs for 6 arguments) but the build time decides the first call, so we keep gcc +
ABI mode. gcc runs at `-O2`: every inner loop we generate is `#pragma omp simd`, vectorised at
`-O2` as at `-O3`; the kernels ran as fast, and gcc took 20-30% less time.

Numerics: results match NumPy within the tolerances of `astcompile/compare.py`: rtol 1e-5
(float32) / 1e-12 (float64), growing to `n * eps / 2` for inputs of `n` items (a sum or scan
in another order). Vector math comes
from glibc's libmvec (≤ 4 ulp, NaN/inf as NumPy), `x**2`/`x**3` are multiplications, sums
accumulate in double in blocks of 8192 elements (a float32 sum of 16M elements is within 1e-6
of the exact sum), and NumPy's semantics are kept for NaN in max/min, integer division by zero,
shifts past the bit width and float->int casts of NaN. Compiled code emits no RuntimeWarning.
"""


def write_docs(path: str, table: str, info: str, rows: list[dict]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    plot = _plot(os.path.join(os.path.dirname(path), "benchmarks.png"), rows)
    body = [INTRO, table, "", info, ""]
    if plot:
        body += ["![speedups over NumPy](benchmarks.png)", ""]
    body += _kept_sections(path)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(body))
    os.replace(tmp, path)


def _kept_sections(path: str) -> list[str]:
    """The loop-kernel section, written by ``python -m bench.loops``, survives a rewrite."""
    from bench.loops import SECTION

    if not os.path.exists(path):
        return []
    with open(path) as f:
        _, found, rest = f.read().partition(SECTION)
    return [found + rest] if found else []


def _plot(path: str, rows: list[dict]) -> bool:
    """Speedup over NumPy per kernel, one bar per compiler measured (log scale)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = [r["name"] for r in rows]
    compilers = [c for c in ("astcompile", "numba", "torch.compile") if any(r.get(c) for r in rows)]
    height = 0.8 / len(compilers)
    fig, ax = plt.subplots(figsize=(9, 0.5 + 0.45 * len(rows) * len(compilers)))
    for k, compiler in enumerate(compilers):
        speedups = [r["numpy"] / r[compiler] if r.get(compiler) else float("nan") for r in rows]
        ys = [i + (k - (len(compilers) - 1) / 2) * height for i in range(len(rows))]
        ax.barh(ys, speedups, height=height, label=compiler)
    ax.set_yticks(range(len(rows)), names)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xlabel("speedup over NumPy (log scale; right of the line is faster; no bar: n/a)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
