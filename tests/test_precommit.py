"""The hook with the real pre-commit tool: a staged graph break in a fullgraph function blocks
the commit, with file:line and the reason in the output; once fixed, the commit goes through.

The hook is installed as ``repo: local`` with ``language: system`` and this interpreter, which
works offline; the published ``repo:`` form (``pre-commit try-repo``, which pip-installs the
repository) needs the package registry and runs in the default suite too
(``docs/pre-commit.md`` shows both).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None
    or subprocess.run(
        [sys.executable, "-m", "pre_commit", "--version"], check=False, capture_output=True
    ).returncode,
    reason="needs git and pre-commit (pip install -e '.[test]')",
)

CONFIG = f"""\
repos:
  - repo: local
    hooks:
      - id: astcompile-check
        name: astcompile check
        entry: {sys.executable} -m astcompile.cli check
        language: system
        types: [python]
        require_serial: true
"""

BROKEN = """\
import numpy as np

import astcompile


@astcompile.compile(fullgraph=True)
def step(x):
    y = np.exp(x)
    print(y.mean())
    return y
"""

FIXED = BROKEN.replace("    print(y.mean())\n", "")


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
        "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"),
        "NO_COLOR": "1",
    }
    return subprocess.run(
        args, check=False, cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )


def _commit(repo: Path, message: str) -> subprocess.CompletedProcess:
    assert _run(repo, "git", "add", "-A").returncode == 0
    return _run(repo, "git", "commit", "-q", "-m", message)


def test_commit_with_a_fullgraph_break_is_refused_then_passes_when_fixed(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    assert _run(repo, "git", "init", "-q").returncode == 0
    (repo / ".pre-commit-config.yaml").write_text(CONFIG)
    installed = _run(repo, sys.executable, "-m", "pre_commit", "install")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    (repo / "model.py").write_text(BROKEN)

    refused = _commit(repo, "add model")
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0, output
    assert "model.py:9:5: GB012 print() has side effects" in output
    assert "step() in model.py:7 is compiled with fullgraph=True and has 1 graph break" in output
    assert _run(repo, "git", "rev-parse", "--verify", "-q", "HEAD").returncode != 0

    (repo / "model.py").write_text(FIXED)
    passed = _commit(repo, "add model")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert _run(repo, "git", "rev-parse", "--verify", "-q", "HEAD").returncode == 0


def test_the_published_hook_is_light():
    """The hook's environment installs the base dependencies only: never Triton or GPU code."""
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "id: astcompile-check" in hooks
    assert "entry: astcompile check" in hooks
    assert "language: python" in hooks and "types: [python]" in hooks
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = " ".join(project["dependencies"]).lower()
    assert not any(word in base for word in ("triton", "torch", "cuda", "cupy"))
    assert "astcompile.cli" in _installed_packages()


def _installed_packages() -> list[str]:
    """The packages setup.py hands setuptools (the wheel the hook installs ships these)."""
    import runpy
    from unittest import mock

    given: dict = {}
    with mock.patch("setuptools.setup", lambda **kw: given.update(kw)):
        runpy.run_path(str(ROOT / "setup.py"))
    return given["packages"]


def test_published_hook_installs_and_runs_with_try_repo(tmp_path: Path):
    """``language: python``: pre-commit pip-installs this repository (base dependencies only)
    into a fresh environment, from a committed snapshot of the working tree: the ``repo:``
    form users write. It needs the package registry, as CI has (about 30 s)."""
    snapshot = tmp_path / "snapshot"
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    for name in listed.stdout.splitlines():
        if (ROOT / name).is_file() and not name.startswith("tests/"):
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, snapshot / name)
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "s"]):
        assert _run(snapshot, *command).returncode == 0
    repo = tmp_path / "repo"
    repo.mkdir()
    assert _run(repo, "git", "init", "-q").returncode == 0
    (repo / "model.py").write_text(BROKEN)
    assert _run(repo, "git", "add", "model.py").returncode == 0
    tried = _run(
        repo,
        sys.executable,
        "-m",
        "pre_commit",
        "try-repo",
        str(snapshot),
        "astcompile-check",
        "--files",
        "model.py",
    )
    assert tried.returncode == 1, tried.stdout + tried.stderr
    assert "model.py:9:5: GB012 print() has side effects" in tried.stdout
