"""``__astcache__`` from ``astcompile build``, attacked and damaged: what a new process loads.

One package is built (in this process) per module; each test copies it, changes the copy, and
imports it in a fresh Python process with an empty user cache and a C compiler at hand.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import astcompile
from astcompile import aot
from astcompile.runtime import artifacts, cache
from tests.trust_helpers import chown_tree, flip_byte, other_uid, planted_pickle, truncate

PACKAGE = "aotsec"
KERNELS = textwrap.dedent("""
    import numpy as np
    import astcompile

    @astcompile.compile(signatures=["float64[:]"])
    def f(x):
        return np.exp(x) * 2.0 + 1.0

    @astcompile.compile(signatures=["float64[:]"])
    def g(x):
        return np.sqrt(x * x + 1.0)
""")
CHILD = textwrap.dedent("""
    import json, os, sys, warnings
    warnings.simplefilter("always")
    import numpy as np
    from aotsec import kern
    x = np.linspace(0.5, 1.5, 9)
    same = [bool(np.allclose(kern.f(x), np.exp(x) * 2.0 + 1.0)),
            bool(np.allclose(kern.g(x), np.sqrt(x * x + 1.0)))]
    print(json.dumps({"same": same, "pwned": os.path.exists(sys.argv[1]),
                      "traces": sum(r.stats.traces for r in kern.f.regions + kern.g.regions)}))
""")


@pytest.fixture(scope="module")
def built_package(tmp_path_factory):
    root = tmp_path_factory.mktemp("aot-build")
    (root / PACKAGE).mkdir()
    (root / PACKAGE / "__init__.py").write_text("")
    (root / PACKAGE / "kern.py").write_text(KERNELS)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(astcompile.config, "cache_dir", str(root / "cache"))
        result = aot.build_package(str(root / PACKAGE))
    for name in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
        del sys.modules[name]
    assert not any(f.errors for f in result.functions) and result.manifests
    return root / PACKAGE


@pytest.fixture()
def package(built_package, tmp_path):
    shutil.copytree(built_package, tmp_path / PACKAGE)
    return tmp_path / PACKAGE


def _run(package) -> tuple[dict, str]:
    marker = package.parent / "pwned"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASTCOMPILE_", "CC"))}
    env.update(PYTHONPATH=str(package.parent), ASTCOMPILE_CACHE_DIR=str(package.parent / "fresh"))
    env.update(ASTCOMPILE_COMPILE_BUDGET="inf")  # traced at once however loaded the machine
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(marker)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def _kernel_of(package, function: str) -> tuple[str, dict]:
    with open(package / "__astcache__" / "manifest.json") as f:
        manifest = json.load(f)
    (entry,) = [
        e
        for es in manifest["functions"][f"{PACKAGE}.kern:{function}"]["regions"].values()
        for e in es
    ]
    return str(package / "__astcache__" / entry["library"]), entry


def test_untouched_artifacts_load_with_no_trace(package):
    result, stderr = _run(package)
    assert result == {"same": [True, True], "pwned": False, "traces": 0}
    assert "not using" not in stderr and "not loading" not in stderr


@pytest.mark.parametrize("planted", ["the whole __astcache__", "one region entry"])
def test_planted_artifacts_of_another_user_are_refused(package, planted):
    """Someone else plants ``__astcache__`` (or one pickle in it) beside our module: the
    pickle never runs, a warning says whose it is, and the functions compile instead."""
    uid = other_uid()
    marker = package.parent / "pwned"
    for entry in (package / "__astcache__" / "regions").iterdir():
        entry.write_bytes(planted_pickle(str(marker)))
        os.chown(entry, uid, -1)
    if planted == "the whole __astcache__":
        chown_tree(str(package / "__astcache__"), uid)
    result, stderr = _run(package)
    assert result["same"] == [True, True] and result["pwned"] is False
    assert f"owned by uid {uid}" in stderr
    assert result["traces"] == 2  # compiled afresh


def test_astcache_in_a_folder_others_can_write_is_refused(package):
    os.chmod(package, 0o777)
    artifacts.forget_manifests()
    manifest, why = artifacts.check_manifest(str(package), astcompile.__version__)
    assert manifest is None and "writable by group and others" in why


def test_truncated_and_bit_flipped_kernels_are_reported_and_compiled_fresh(package):
    flipped, entry = _kernel_of(package, "f")
    truncated, _ = _kernel_of(package, "g")
    assert cache.file_digest(flipped) == (entry["library_size"], entry["library_sha256"])
    flip_byte(flipped)
    truncate(truncated)
    result, stderr = _run(package)
    assert result["same"] == [True, True] and result["traces"] == 2
    reports = [line for line in stderr.splitlines() if "not the library its entry was" in line]
    assert all(any(path in line for line in reports) for path in (flipped, truncated))
    assert "astcompile build" in stderr
