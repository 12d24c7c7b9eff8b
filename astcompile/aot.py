"""Ahead-of-time builds: compile a package's declared signatures into ``__astcache__/``.

Building imports every module of the package (so, like Numba's AOT, it executes them), then
calls each compiled function that declares signatures (``compile(signatures=[...])`` or the
``[tool.astcompile.signatures]`` table of pyproject.toml) with example arguments made from each
signature (:mod:`astcompile.signatures`). That runs the normal path: rewrite, trace every region
reached, generate C, gcc. While it runs, :mod:`astcompile.jit.warm` writes every rewrite, region
entry and kernel into ``__astcache__/`` beside the function's module; at the end each such
folder gets a ``manifest.json`` naming what the artifacts require (versions, flags, CPU
features) and what they hold (per function: code hashes, callees, region guard keys -> files).
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Protocol

from astcompile.frontend import rewrite_cache
from astcompile.frontend.lookup import code_hash
from astcompile.jit import warm
from astcompile.runtime import artifacts, build
from astcompile.signatures import Signature, parse_signatures


@dataclass
class FunctionBuild:
    """One compiled function's build: what was made and what went wrong."""

    name: str  # module:qualname
    compiled: Any
    signatures: tuple[Signature, ...]
    graphs: int = 0
    breaks: int = 0
    kernels: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)


@dataclass
class BuildResult:
    functions: list[FunctionBuild]
    errors: list[str]  # modules that failed to import, bad pyproject entries
    manifests: list[str]
    seconds: float


def package_modules(pkg_dir: str) -> tuple[str, list[str]]:
    """(the folder to put on sys.path, the dotted names of the modules under ``pkg_dir``)."""
    pkg_dir = os.path.abspath(pkg_dir)
    is_package = os.path.exists(os.path.join(pkg_dir, "__init__.py"))
    root = os.path.dirname(pkg_dir) if is_package else pkg_dir
    names = []
    for folder, dirs, files in os.walk(pkg_dir):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith((".", "__"))
            and os.path.exists(os.path.join(folder, d, "__init__.py"))
        )
        for file in sorted(files):
            if file.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, file), root)[:-3].split(os.sep)
                names.append(".".join(rel[:-1] if rel[-1] == "__init__" else rel))
    return root, names


def pyproject_signatures(pkg_dir: str) -> dict[str, list[str]]:
    """``[tool.astcompile.signatures]`` of the nearest pyproject.toml above ``pkg_dir``."""
    from astcompile.cli.project_config import _read, find_pyproject

    path = find_pyproject([pkg_dir])
    table = _read(path).get("tool", {}).get("astcompile", {}).get("signatures", {}) if path else {}
    return dict(table)


def _compiled_in(module: Any) -> Iterator[tuple[str, Any]]:
    from astcompile.jit.function import CompiledFunction

    for value in list(vars(module).values()):
        if isinstance(value, CompiledFunction) and value.fn.__module__ == module.__name__:
            yield f"{module.__name__}:{value.fn.__qualname__}", value


def _resolve(target: str) -> Any:
    import astcompile
    from astcompile.jit.function import CompiledFunction

    module_name, _, qualname = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj if isinstance(obj, CompiledFunction) else astcompile.compile(obj)


def collect(pkg_dir: str) -> tuple[list[FunctionBuild], list[str]]:
    """Import the package's modules; every compiled function with signatures, and the errors."""
    root, names = package_modules(pkg_dir)
    if root not in sys.path:
        sys.path.insert(0, root)
    found: dict[str, FunctionBuild] = {}
    errors = []
    for name in names:
        try:
            module = importlib.import_module(name)
        except Exception as exc:
            errors.append(f"{name}: import failed: {type(exc).__name__}: {exc}")
            continue
        for target, compiled in _compiled_in(module):
            if compiled.signatures:
                found[target] = FunctionBuild(target, compiled, compiled.signatures)
    for target, texts in pyproject_signatures(pkg_dir).items():
        try:
            compiled = _resolve(target)
            sigs = parse_signatures(texts)
        except Exception as exc:
            errors.append(f"[tool.astcompile.signatures] {target}: {type(exc).__name__}: {exc}")
            continue
        previous = found.get(target)
        extra = previous.signatures if previous else ()
        found[target] = FunctionBuild(target, compiled, extra + sigs)
    return list(found.values()), errors


def build_function(job: FunctionBuild) -> FunctionBuild:
    """Call the function with every signature's example arguments; count what it built."""
    start = time.perf_counter()
    job.compiled.reset()
    for signature in job.signatures:
        for args in signature.example_args():
            try:
                job.compiled(*args)
            except Exception as exc:
                job.errors.append(f"{signature.text!r}: {type(exc).__name__}: {exc}")
    regions = job.compiled.regions
    job.breaks = len(job.compiled.static_breaks) + sum(len(r.stats.breaks) for r in regions)
    job.seconds = time.perf_counter() - start
    return job


class Progress(Protocol):
    """Told how many functions a build has, then each function as it finishes."""

    def start(self, total: int) -> None: ...

    def done(self, job: FunctionBuild) -> None: ...


def build_package(pkg_dir: str, jobs: int = 1, progress: Progress | None = None) -> BuildResult:
    """Build every declared signature of ``pkg_dir``'s compiled functions into ``__astcache__``."""
    from astcompile import __version__

    start = time.perf_counter()
    for folder, dirs, _ in os.walk(os.path.abspath(pkg_dir)):
        if artifacts.ARTIFACT_DIR in dirs:
            shutil.rmtree(os.path.join(folder, artifacts.ARTIFACT_DIR))
            dirs.remove(artifacts.ARTIFACT_DIR)
    warm.built.clear()
    warm._aot.set()
    try:
        functions, errors = collect(pkg_dir)
        if progress:
            progress.start(len(functions))
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for finished in as_completed([pool.submit(build_function, f) for f in functions]):
                job = finished.result()
                if progress:
                    progress.done(job)
        manifests = write_manifests(functions, __version__)
    finally:
        warm._aot.clear()
        artifacts.forget_manifests()
    return BuildResult(functions, errors, manifests, time.perf_counter() - start)


def write_manifests(functions: list[FunctionBuild], version: str) -> list[str]:
    """One ``manifest.json`` per ``__astcache__`` folder the build wrote into."""
    by_folder: dict[str, dict[str, Any]] = {}
    for job in functions:
        fn = job.compiled.fn
        folder = os.path.dirname(os.path.abspath(fn.__code__.co_filename))
        record = _function_record(job)
        job.graphs = sum(len(v) for v in record["regions"].values())
        job.kernels = len(
            {e["library"] for v in record["regions"].values() for e in v if e["library"]}
        )
        by_folder.setdefault(folder, {})[job.name] = record
    written = []
    for folder, records in by_folder.items():
        manifest = {
            "format": artifacts.MANIFEST_FORMAT,
            "environment": artifacts.environment(version),
            "compiler": compiler_info(),
            "functions": records,
        }
        store = artifacts.package_store(folder)
        store.write("", artifacts.MANIFEST, json.dumps(manifest, indent=2, sort_keys=True).encode())
        written.append(store.path("", artifacts.MANIFEST))
    return written


def _function_record(job: FunctionBuild) -> dict[str, Any]:
    compiled = job.compiled
    fn = compiled.fn
    key = rewrite_cache.function_key(fn, compiled.all_eager)
    store = warm.target_store(fn.__code__.co_filename)
    lookups: list = []
    frontend = f"frontend/{key}.json" if key else None
    data = store.read("frontend", f"{key}.json") if key and store else None
    if data:
        lookups = json.loads(data)["lookups"]
    regions: dict[str, list] = {}
    for built in warm.built:
        if built["function"] is compiled:
            entry = {k: v for k, v in built.items() if k not in ("function", "region")}
            regions.setdefault(built["region"], []).append(entry)
    return {
        "code_hash": code_hash(fn) if key else None,
        "frontend": frontend if data else None,
        "signatures": [s.text for s in job.signatures],
        "lookups": lookups,
        "callees": {d: fp for _, d, fp in lookups if fp and fp.startswith("function:")},
        "regions": regions,
        "errors": job.errors,
    }


def compiler_info() -> dict[str, Any]:
    """The compiler used, and what ``-march=native`` resolved to (informational)."""
    try:
        path = build.find_compiler()
    except build.CompilerNotFound:
        return {}
    info: dict[str, Any] = {"path": path, "id": build.compiler_id(path)}
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
        info["version"] = version.stdout.splitlines()[0] if version.stdout else ""
        target = subprocess.run(
            [path, "-march=native", "-Q", "--help=target"],
            capture_output=True,
            text=True,
            check=False,
        )
        march = [
            ln.split()[-1] for ln in target.stdout.splitlines() if ln.strip().startswith("-march=")
        ]
        info["march_native"] = march[0] if march else ""
    except OSError:
        pass
    return info
