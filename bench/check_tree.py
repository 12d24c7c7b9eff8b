"""``python -m bench.check_tree [--files N] [--keep DIR]``: time ``astcompile check`` on a tree.

Generates a package of N realistic modules (200 by default) in a temporary folder: NumPy
imports under different aliases, helpers, a class with a compiled method, compiled functions
spelled as decorators and as module-level calls, a few with graph breaks (prints, data-dependent
``if``, ``try``, calls into unknown modules and into helpers that break), plus plain modules
that never mention astcompile. Then runs ``astcompile check`` on it in a fresh process, as a
user or pre-commit would, and prints the wall time (target: < 10 s on a 2-core machine).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from bench.measure import ROOT

HEADER = '''"""Generated module {index}: feature transforms."""

import json
import math

import numpy as np
{import_line}

EPS = 1e-6
'''

HELPERS = """

def _scale_{index}(x, factor):
    return x * factor + EPS


def _log_{index}(x):
    print("stats", float(np.mean(x)))
    return x
"""

COMPILED = [
    """

@{deco}
def gelu_{index}(x):
    inner = 0.7978845608 * (x + 0.044715 * x ** 3)
    return 0.5 * x * (1.0 + np.tanh(inner))
""",
    """

@{deco_args}
def softmax_{index}(x):
    shifted = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(shifted)
    if x.ndim == 1:
        return e / np.sum(e)
    return e / np.sum(e, axis=-1, keepdims=True)
""",
    """

def normalise_{index}(x, gamma, beta):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + EPS)
    for _ in range(2):
        y = _scale_{index}(y, 0.5)
    return y * gamma + beta


normalise_{index}_fast = {call}(normalise_{index})
""",
    """

@{deco}
def clipped_{index}(x, limit):
    if np.abs(x).sum() > limit:
        x = x * (limit / np.abs(x).sum())
    return np.clip(x, -1.0, 1.0)
""",
    """

@{deco}
def noisy_{index}(x):
    y = np.sqrt(np.abs(x)) + math.pi
    y = _log_{index}(y)
    try:
        blob = json.dumps(y.tolist())
    except TypeError:
        blob = ""
    return y, blob
""",
]

CLASS = """

class Model{index}:
    def __init__(self, weight):
        self.weight = weight

    @{deco}
    def forward(self, x):
        h = np.maximum(x @ self.weight, 0.0)
        return h / (1.0 + np.exp(-h))
"""

PLAIN = '''"""Generated module {index}: no compiled code."""

import numpy as np


def load_{index}(path):
    with open(path) as handle:
        return np.array([float(line) for line in handle])


def summary_{index}(x):
    print(x.mean(), x.std())
    return {{"mean": float(x.mean()), "std": float(x.std())}}
'''

SPELLINGS = [
    (
        "import astcompile",
        "astcompile.compile",
        'astcompile.compile(backend="c")',
        "astcompile.compile",
    ),
    ("import astcompile as ac", "ac.compile", "ac.compile(fullgraph=False)", "ac.compile"),
    ("from astcompile import compile as jit", "jit", "jit(dynamic=True)", "jit"),
]


def module_text(index: int) -> str:
    """A module of realistic shape; every fifth one has no compiled code at all."""
    if index % 5 == 4:
        return PLAIN.format(index=index)
    import_line, deco, deco_args, call = SPELLINGS[index % len(SPELLINGS)]
    names = {"index": index, "deco": deco, "deco_args": deco_args, "call": call}
    parts = [HEADER.format(import_line=import_line, index=index), HELPERS.format(index=index)]
    parts += [template.format(**names) for template in COMPILED]
    parts.append(CLASS.format(**names))
    return "".join(parts)


def write_tree(root: str, files: int) -> None:
    for index in range(files):
        package = os.path.join(root, "pkg", f"sub{index // 25}")
        os.makedirs(package, exist_ok=True)
        with open(os.path.join(package, f"mod{index}.py"), "w") as handle:
            handle.write(module_text(index))


def time_check(root: str, jobs: int | None) -> tuple[float, float, dict]:
    """Wall and CPU seconds (the check and its worker processes) of one ``astcompile check``."""
    command = [sys.executable, "-m", "astcompile.cli", "check", "--json", "pkg"]
    command += ["--jobs", str(jobs)] if jobs else []
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, check=False, cwd=root, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if result.returncode not in (0, 1):
        raise SystemExit(f"astcompile check failed ({result.returncode}):\n{result.stderr}")
    return elapsed, cpu, json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.check_tree", description=__doc__)
    parser.add_argument("--files", type=int, default=200, help="modules to generate")
    parser.add_argument("--jobs", type=int, help="passed to astcompile check --jobs")
    parser.add_argument("--keep", help="write the tree here and keep it")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = opts.keep or scratch
        write_tree(root, opts.files)
        elapsed, cpu, report = time_check(root, opts.jobs)
    functions = report["functions"]
    print(
        f"astcompile check: {report['files_checked']} files, {len(functions)} compiled "
        f"functions, {len(report['breaks'])} graph breaks in {elapsed:.2f} s wall, "
        f"{cpu:.2f} s CPU (target < 10 s wall; {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
