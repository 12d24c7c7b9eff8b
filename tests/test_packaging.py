"""What users install, tested: the sdist and the wheel hold the whole package, and a named part
of this suite passes against the wheel installed in a fresh virtual environment.

Every other test imports the editable checkout, so a module the wheel leaves out, a data file
(the C runtime headers, ``fastcall.c``) it does not ship, or a dependency pyproject.toml forgets
would pass them all (``astcompile.dask`` once was missing from every installed copy). Here
``python -m build`` makes the sdist and, from it, the wheel; the wheel goes into a new virtual
environment without the system's packages, with its ``dask`` extra and the test tools, from the
package registry, as a user's ``pip install`` gets them; and :data:`INSTALLED_SUBSET` runs from
a copy of ``tests/`` in a temporary folder, so neither the checkout nor an editable install is
on ``sys.path``. ``tests/installed_copy.py`` fails that run if any ``astcompile`` module was
imported from anywhere but the environment. The README's test command runs this file with the
rest: CI (``.ci/run``) tests the editable checkout and the installed wheel in one command.
"""

from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

import astcompile

ROOT = Path(__file__).resolve().parent.parent

#: The installed run: each subpackage (the frontend, trace, ir, passes, codegen, backends, jit,
#: runtime with its C headers and fastcall.c, dask on a 2-process cluster, the CLI and
#: ``astcompile build``), the C build and disk cache, spawned processes and warm starts. About
#: a third of the suite's time; Triton's tests need the ``[gpu]`` extra and stay editable-only.
INSTALLED_SUBSET = (
    "tests/test_packaging.py::test_every_module_imports",
    "tests/test_api.py",
    "tests/test_differential.py",
    "tests/test_backend_c.py",
    "tests/test_loops.py",
    "tests/test_loop_extents.py",
    "tests/test_loop_starts.py",
    "tests/test_loop_plan.py",
    "tests/test_reads.py",
    "tests/test_numpy_steps.py",
    "tests/test_fastcall.py",
    "tests/test_runtime_build.py",
    "tests/test_runtime_cache.py",
    "tests/test_runtime_forksafe.py",
    "tests/test_warm.py",
    "tests/test_pickling.py",
    "tests/test_carried.py",
    "tests/test_dask.py",
    "tests/test_dask_cluster.py",
    "tests/test_cli_check.py",
    "tests/test_cli_build.py",
    "tests/test_aot.py",
    "tests/test_misses.py",
)

#: What the fresh environment gets besides the wheel: its extras, and the test extra's
#: requirements but those the installed run does not use (Triton is large and GPU-only).
EXTRAS = "dask"
NOT_NEEDED = ("triton", "pre-commit", "ruff", "build")

#: Where each top folder of the checkout is installed (pyproject.toml's ``package-dir``).
FOLDERS = {
    "astcompile": "astcompile",
    "runtime": "astcompile/runtime",
    "kernels": "astcompile/kernels",
}


def test_every_module_imports():
    """Each module of the package imports (Triton's only where Triton is installed); in the
    installed run this is the installed copy's every file."""
    failed = {}
    for module in pkgutil.walk_packages(astcompile.__path__, "astcompile."):
        if module.name.endswith(".__main__"):  # runs its command when imported
            continue
        try:
            importlib.import_module(module.name)
        except ModuleNotFoundError as exc:
            if exc.name not in ("triton", "cupy", "cuda"):
                failed[module.name] = repr(exc)
    assert not failed


def test_the_installed_subset_names_test_files_that_run_without_bench():
    """Each entry of :data:`INSTALLED_SUBSET` is a test file of the checkout, and neither it nor
    a test module it imports (``from test_masks import ...``) imports ``bench``: bench/ is not
    installed, so such a file fails at import in the installed run, found only by the slow
    test below (a split of test_loops.py left its name here once)."""
    files = {entry.partition("::")[0] for entry in INSTALLED_SUBSET}
    assert sorted(f for f in files if not (ROOT / f).is_file()) == []
    seen: set[str] = set()
    todo = [Path(f).stem for f in files]
    while todo:
        name = todo.pop().removeprefix("tests.")
        if name in seen or not (ROOT / "tests" / f"{name}.py").is_file():
            continue
        seen.add(name)
        imported = _imports(ROOT / "tests" / f"{name}.py")
        assert not any(m.split(".")[0] == "bench" for m in imported), name
        todo.extend(imported)


def _imports(path: Path) -> set[str]:
    """The modules a file imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist, and the wheel built from it (``python -m build``'s default), as a user's
    ``pip install`` of the repository builds them."""
    out = tmp_path_factory.mktemp("dist")
    built = _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], ROOT)
    assert built.returncode == 0, built.stdout + built.stderr
    return out


def _run(command: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=1200
    )


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("astcompile-*.whl")
    return wheel


def test_the_wheel_and_the_sdist_hold_every_module_and_data_file(dist: Path):
    tracked = subprocess.run(
        ["git", "ls-files", "--", *FOLDERS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    with zipfile.ZipFile(_wheel(dist)) as wheel:
        in_wheel = set(wheel.namelist())
    (sdist,) = dist.glob("astcompile-*.tar.gz")
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    installed = {name: _installed_name(name) for name in tracked}
    shipped = {name for name, path in installed.items() if path is not None}
    assert {installed[name] for name in shipped} <= in_wheel
    assert shipped <= in_sdist
    assert any(name.endswith("runtime/include/astc_math.h") for name in in_wheel)
    assert "astcompile/dask/__init__.py" in in_wheel


def _installed_name(tracked: str) -> str | None:
    """Where a tracked file of ``astcompile/``, ``runtime/`` or ``kernels/`` is installed
    (None: a file the package does not ship, such as a contributor's note)."""
    folder, _, inner = tracked.partition("/")
    package = FOLDERS[folder]
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    globs = package_data["package-data"].get(package.replace("/", "."), ())
    if tracked.endswith(".py") or any(Path(inner).match(glob) for glob in globs):
        return f"{package}/{inner}"
    return None


@pytest.fixture(scope="module")
def environment(dist: Path, tmp_path_factory: pytest.TempPathFactory):
    """A new virtual environment (no system packages) holding the wheel, its extras and the
    test tools, installed from the package registry; removed afterwards (it is large)."""
    venv = tmp_path_factory.mktemp("installed") / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)], ROOT)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    tools = [r for r in project["optional-dependencies"]["test"] if not r.startswith(NOT_NEEDED)]
    wheel = f"{_wheel(dist)}[{EXTRAS}]"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel, *tools]
    installed = _run(pip, venv.parent, _clean_env())
    assert installed.returncode == 0, installed.stdout + installed.stderr
    yield python
    shutil.rmtree(venv, ignore_errors=True)


def _clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would point a child at the checkout or at this
    run's caches and settings (PYTHONPATH, ASTCOMPILE_*, TRITON_*)."""
    kept = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON", "ASTCOMPILE_", "TRITON_"))
    }
    return {**kept, **extra}


def test_the_installed_wheel_passes_the_installed_subset(environment: Path, tmp_path: Path):
    """The named subset, from a copy of ``tests/`` outside the checkout, against the installed
    wheel; the plugin ``tests/installed_copy.py`` fails the run if any ``astcompile`` module
    came from elsewhere. ``docs/`` and pyproject.toml come along: some tests read them."""
    shutil.copytree(
        ROOT / "tests", tmp_path / "tests", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    command = [
        str(environment),
        "-m",
        "pytest",
        "-q",
        "-p",
        "tests.installed_copy",
        *INSTALLED_SUBSET,
    ]
    ran = _run(command, tmp_path, _clean_env(ASTCOMPILE_CACHE_DIR=str(tmp_path / "cache")))
    output = ran.stdout + ran.stderr
    assert ran.returncode == 0, output[-8000:]
    assert f"astcompile imported from {environment.parent.parent}" in output, output[-3000:]
