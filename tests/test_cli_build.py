"""``astcompile build``: artifacts built once load in a fresh process with no C compiler.

The sample package is ``tests/build_samples/aotpkg`` (signatures in the decorator and in the
sample's pyproject.toml). Each test builds a copy in a temporary folder, then runs Python
subprocesses whose PATH has no compiler (and no ``$CC``).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from astcompile import aot
from astcompile.cli import build as build_command
from astcompile.cli import options
from astcompile.runtime import build as runtime_build

SAMPLES = os.path.join(os.path.dirname(__file__), "build_samples")
pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None and shutil.which("cc") is None, reason="needs a C compiler"
)

# Runs in the compiler-less subprocess: compares every function with NumPy, reports what ran.
_CHILD = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    warnings.simplefilter("always")
    from astcompile.runtime import build
    try:
        build.find_compiler()
        found = True
    except build.CompilerNotFound:
        found = False
    import astcompile
    from aotpkg import kernels
    x32 = np.linspace(-3, 3, 1001).astype(np.float32)
    x64 = np.linspace(0.1, 3, 999)
    X = np.linspace(-1, 1, 40 * 3).reshape(40, 3)
    b = np.linspace(0.5, 1.0, 3)
    def gelu(x):
        return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))
    checks = [
        (kernels.gelu(x32), gelu(x32)),
        (kernels.gelu(x64), gelu(x64)),
        (kernels.affine(X, b), np.exp(X) * (b * b + 1.0)),
        (kernels.scaled(x64, 2.5), np.sqrt(x64 * 2.5) + 1.0),
    ]
    same = [bool(np.allclose(got, want, rtol=1e-5, atol=1e-6)) and got.dtype == want.dtype
            for got, want in checks]
    print(json.dumps({"compiler_found": found, "same": same,
                      "phases": sorted(astcompile.compile_times()),
                      "libcst": "libcst" in sys.modules,
                      "compiled_calls": sum(r.stats.compiled_calls for f in
                                            (kernels.gelu, kernels.affine, kernels.scaled)
                                            for r in f.regions)}))
""")


def _env(tmp_path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASTCOMPILE_", "CC"))}
    env.update(PYTHONPATH=str(tmp_path / "samples"), ASTCOMPILE_CACHE_DIR=str(tmp_path / "cache"))
    env.update(extra)
    return env


def _no_compiler_env(tmp_path) -> dict[str, str]:
    """No compiler on PATH, no ``$CC`` (one that names a missing compiler is an error, not
    the absence of a compiler), an empty user cache."""
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    return _env(tmp_path, PATH=str(empty), ASTCOMPILE_CACHE_DIR=str(tmp_path / "fresh-cache"))


def _build(tmp_path) -> subprocess.CompletedProcess:
    shutil.copytree(SAMPLES, tmp_path / "samples")
    code = "from astcompile.cli import main; raise SystemExit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, "build", str(tmp_path / "samples" / "aotpkg"), "-j", "2"],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        cwd=tmp_path,
        timeout=300,
        check=False,
    )


def _run_child(tmp_path, **extra: str) -> tuple[dict, str]:
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD],
        capture_output=True,
        text=True,
        env={**_no_compiler_env(tmp_path), **extra},
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


@pytest.fixture()
def built(tmp_path):
    proc = _build(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return tmp_path, proc.stdout


def _manifest_path(tmp_path) -> str:
    return str(tmp_path / "samples" / "aotpkg" / "__astcache__" / "manifest.json")


def test_build_reports_breaks_and_a_table(built):
    tmp_path, out = built
    assert "GB006" in out  # the check's report comes first
    assert "aotpkg.kernels:gelu" in out and "aotpkg.kernels:scaled" in out
    total = next(line for line in out.splitlines() if line.startswith("total")).split()
    assert total[1:5] == ["4", "5", "1", "5"]  # signatures, graphs, breaks, kernels
    with open(_manifest_path(tmp_path)) as f:
        manifest = json.load(f)
    gelu = manifest["functions"]["aotpkg.kernels:gelu"]
    assert gelu["signatures"] == ["float32[:]", "float64[:]"]
    assert len(gelu["regions"]["__ac_region_0"]) == 2
    assert "aotpkg.kernels.poly" not in json.dumps(gelu["callees"])
    affine = manifest["functions"]["aotpkg.kernels:affine"]
    assert any(fp.startswith("function:") for fp in affine["callees"].values())
    assert manifest["environment"]["cpu_flags"]
    assert manifest["compiler"]["path"]


def test_artifacts_load_without_a_compiler(built):
    tmp_path, _ = built
    result, stderr = _run_child(tmp_path)
    assert result["compiler_found"] is False
    assert result["same"] == [True, True, True, True]
    assert result["compiled_calls"] == 5  # every region ran its prebuilt kernel
    for phase in ("source", "analysis", "rewrite", "trace", "lower", "build"):
        assert phase not in result["phases"], (phase, result["phases"])
    assert result["libcst"] is False
    assert "stale" not in stderr and "not using" not in stderr


def test_stale_artifact_is_detected_and_not_used(built):
    tmp_path, _ = built
    path = tmp_path / "samples" / "aotpkg" / "kernels.py"
    path.write_text(path.read_text().replace("return x * x + 1.0", "return x * x + 1.0  # edited"))
    text = path.read_text().replace("0.5 * x * (1.0", "0.5 * x * (1.0 + 0.0")
    path.write_text(text)
    # no compile budget: on a loaded machine the front end's import outlasts it and the call
    # runs plain, analysing nothing
    result, stderr = _run_child(tmp_path, ASTCOMPILE_COMPILE_BUDGET="inf")
    assert "aotpkg.kernels:gelu" in stderr and "stale" in stderr
    assert "source changed" in stderr
    assert result["same"] == [True, True, True, True]
    assert "analysis" in result["phases"]  # gelu was analysed again, not loaded


def test_manifest_for_another_cpu_is_rejected(built):
    tmp_path, _ = built
    with open(_manifest_path(tmp_path)) as f:
        manifest = json.load(f)
    manifest["environment"]["cpu_flags"].append("avx9000")
    with open(_manifest_path(tmp_path), "w") as f:
        json.dump(manifest, f)
    result, stderr = _run_child(tmp_path)
    assert "avx9000" in stderr and "not using ahead-of-time artifacts" in stderr
    assert result["same"] == [True, True, True, True]
    assert "trace" in result["phases"]  # compiled (eagerly: no compiler) instead


def test_compiler_is_really_missing_in_the_child(tmp_path):
    env = _no_compiler_env(tmp_path)
    code = "from astcompile.runtime import build; build.find_compiler()"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode != 0 and "CompilerNotFound" in proc.stderr
    assert runtime_build.find_compiler()  # while this process has one


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _fake_build(pkg_dir: str, jobs: int, progress) -> aot.BuildResult:
    """Three functions that finish at once: what the progress bar is told, nothing built."""
    functions = [aot.FunctionBuild(f"pkg.mod:f{i}", None, ()) for i in range(3)]
    progress.start(len(functions))
    for job in functions:
        progress.done(job)
    return aot.BuildResult(functions, [], [], 0.0)


@pytest.mark.parametrize(
    "argv, terminal, shown",
    [([], True, True), (["--no-progress"], True, False), ([], False, False)],
)
def test_progress_bar_on_a_terminal_only(monkeypatch, argv, terminal, shown):
    monkeypatch.setattr(build_command, "build_package", _fake_build)
    stderr = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    parser = argparse.ArgumentParser()
    build_command.add_arguments(parser)
    args = parser.parse_args(["pkg", "-j", "3", *argv])
    assert [f.name for f in build_command._build(args).functions][-1] == "pkg.mod:f2"
    bar = stderr.getvalue()
    assert ("astcompile build" in bar and "3/3" in bar and "f2" in bar) is shown
    assert bar == "" or shown


def test_jobs_is_a_count_and_zero_means_one_per_cpu():
    parser = argparse.ArgumentParser()
    build_command.add_arguments(parser)
    assert options.jobs(parser.parse_args(["pkg", "-j", "3"])) == 3
    assert options.jobs(parser.parse_args(["pkg", "-j", "0"])) == options.default_jobs() >= 1
    assert options.jobs(parser.parse_args(["pkg"])) == options.default_jobs()
    with pytest.raises(SystemExit):
        parser.parse_args(["pkg", "-j", "-2"])
