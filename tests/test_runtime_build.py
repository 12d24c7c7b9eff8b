"""Running the C compiler: a time limit that ends the whole compiler, and ``$CC`` honoured
exactly (runtime/build.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest
from differential import assert_matches

import astcompile
from astcompile.errors import CompileError
from astcompile.runtime import BuildTimeout, CompilerNotFound, build, evict, fastcall, load_library
from tests.test_runtime_forksafe import timed_fork
from tests.trust_helpers import gone, hanging_compiler, started

HANG = "#!/bin/sh\necho $$ > {pidfile}\nsleep 60\n"


def _hanging_compiler(tmp_path) -> tuple[str, str]:
    pidfile = tmp_path / "pid"
    cc = tmp_path / "hangcc"
    cc.write_text(HANG.format(pidfile=pidfile))
    cc.chmod(0o755)
    return str(cc), str(pidfile)


def _gone(pidfile: str) -> bool:
    with open(pidfile) as f:
        pid = int(f.read())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def scale_exp(x):
    return np.exp(x) * 2.0 + 1.0


def test_a_hanging_compiler_ends_at_the_timeout_and_the_region_runs_in_numpy(tmp_path, monkeypatch):
    cc, pidfile = _hanging_compiler(tmp_path)
    monkeypatch.setenv("CC", cc)
    monkeypatch.setattr(astcompile.config, "build_timeout", 2.0)
    monkeypatch.setattr(astcompile.config, "suppress_errors", True)
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    x = np.linspace(0, 1, 7)
    start = time.perf_counter()
    with pytest.warns(RuntimeWarning, match="did not finish within 2 s.*ASTCOMPILE_BUILD_TIMEOUT"):
        got = astcompile.compile(scale_exp)(x)
    assert time.perf_counter() - start < 8
    assert_matches(got, np.exp(x) * 2.0 + 1.0)
    assert _gone(pidfile)  # the compiler's process group was killed, not left sleeping
    assert os.listdir(tmp_path / "cache" / "c-v1") == []  # nothing half-built kept


def test_timeout_is_a_build_error_naming_the_setting(tmp_path):
    cc, pidfile = _hanging_compiler(tmp_path)
    with pytest.raises(BuildTimeout, match=r"within 0\.5 s.*build_timeout"):
        build.compile_shared("int x;", str(tmp_path / "k.so"), str(tmp_path), cc, timeout=0.5)
    assert _gone(pidfile)


def test_an_explicit_cc_that_cannot_run_is_an_error_naming_cc(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "no-such-compiler-xyz")
    with pytest.raises(CompilerNotFound, match=r"\$CC is set to 'no-such-compiler-xyz'"):
        build.find_compiler()
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    monkeypatch.setattr(
        fastcall, "_state", {}
    )  # the call path it cannot build: not for later tests
    with pytest.raises(CompileError, match=r"\$CC is set to"):  # not gcc, not silently NumPy
        astcompile.compile(scale_exp)(np.ones(3))


_BUILDS = """
import sys
from astcompile.runtime import fastcall
fastcall.extension(sys.argv[1])
"""


def test_a_killed_build_takes_its_compiler_along_and_its_folder_goes_next_time(tmp_path):
    """A process SIGKILLed while its compiler runs: a watchdog kills the compiler's group
    (nothing is left running, orphaned), and the next build sweeps the dead owner's build
    folder at once, not 10 minutes later."""
    cc, pids = hanging_compiler(tmp_path)
    cache = tmp_path / "cache"
    env = {**os.environ, "CC": cc, "ASTCOMPILE_BUILD_TIMEOUT": "0"}
    proc = subprocess.Popen([sys.executable, "-c", _BUILDS, str(cache)], env=env)
    try:
        deadline = time.monotonic() + 60
        while len(started(pids)) < 2:
            assert time.monotonic() < deadline and proc.poll() is None, "the build never started"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while not all(gone(pid) for pid in started(pids)):
        assert time.monotonic() < deadline, "the compiler outlived the process that ran it"
        time.sleep(0.05)
    entries = cache / "c-v1"
    (left,) = [n for n in os.listdir(entries) if n.startswith(".build-")]
    assert str(proc.pid) in left
    evict.reset_counter()  # as in the next process to start: its first build sweeps
    load_library("int one(void) { return 1; }", "int one(void);", str(cache))
    assert not any(n.startswith(".build-") for n in os.listdir(entries))


_FIRST_BUILD = """
import sys, time
import numpy as np
import astcompile
from astcompile.runtime import build
sys.path.insert(0, {folder!r})
import first_build

compiling = build.compile_shared
seen = []


def watched(*args, **kwargs):
    deadline = time.monotonic() + 5.0
    while "cffi.recompiler" not in sys.modules and time.monotonic() < deadline:
        time.sleep(0.01)
    seen.append("cffi.recompiler" in sys.modules)
    return compiling(*args, **kwargs)


build.compile_shared = watched
x = np.arange(4.0)
print(astcompile.compile(first_build.affine, backend="c")(x).tolist(), seen)
"""


def test_the_first_build_imports_cffis_c_parser_while_the_compiler_runs(tmp_path):
    """Opening the new library parses its declarations with cffi's C parser (about 10 ms to
    import): a process's first build imports it on another thread while the compiler runs."""
    seen = _first_build(tmp_path, _FIRST_BUILD)
    assert seen == "[True]"


def _first_build(tmp_path, program: str) -> str:
    """Run ``program`` (a first build of ``affine``) in a new process on an empty cache; what
    it printed after the result, which it checks."""
    (tmp_path / "first_build.py").write_text("def affine(v):\n    return v * 2.0 + 1.0\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTCOMPILE_")}
    env.update(ASTCOMPILE_CACHE_DIR=str(tmp_path / "cache"), ASTCOMPILE_COMPILE_BUDGET="inf")
    code = program.format(folder=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.startswith("[1.0, 3.0, 5.0, 7.0]")
    return out.stdout.split("] ")[1].strip()


_PARSED_AHEAD = """
import sys, threading
import cffi
import numpy as np
import astcompile
from astcompile.runtime import build
sys.path.insert(0, {folder!r})
import first_build

compiling, cdef = build.compile_shared, cffi.FFI.cdef
after = []  # for each parse of C: whether the caller's thread made it after the compiler


def watched(*args, **kwargs):
    compiling(*args, **kwargs)
    watched.done = True


def parse(self, *args, **kwargs):
    after.append(watched.done and threading.current_thread() is threading.main_thread())
    return cdef(self, *args, **kwargs)


watched.done = False
build.compile_shared, cffi.FFI.cdef = watched, parse
x = np.arange(4.0)
print(astcompile.compile(first_build.affine, backend="c")(x).tolist(), after)
"""


def test_the_declarations_are_parsed_while_the_compiler_runs(tmp_path):
    """Opening the new library and its record for the next process each parse its C
    declarations (a few ms each): done on another thread while the compiler runs, not after."""
    parses = _first_build(tmp_path, _PARSED_AHEAD)
    assert parses == "[False, False]"  # the library's and the record's, neither after it


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_fork_waits_while_a_build_starts_its_compiler():
    """A child forked inside ``Popen`` keeps copies of the compiler's pipes (its exec-status
    pipe among them) and ``Popen`` waits until every copy is closed: a pool started while the
    call path built stalled that build until its workers exited. ``os.fork`` waits instead."""
    import threading

    holding, hold_for = threading.Event(), 0.5

    def starts_a_compiler() -> None:
        with build._starting:
            holding.set()
            time.sleep(hold_for)

    starter = threading.Thread(target=starts_a_compiler)
    starter.start()
    holding.wait(30)
    waited = timed_fork()
    starter.join(30)
    assert waited > hold_for * 0.5
