"""Locks a forked child gets back unlocked (runtime/forksafe.py): a process that forks while
another of its threads compiles must not leave its child waiting forever."""

from __future__ import annotations

import os
import shutil
import threading
import time

import numpy as np
import pytest

import astcompile

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

SLOW = '#!/bin/sh\ntouch {started}\nsleep 1\nexec {gcc} "$@"\n'


def shifted_log(x):
    return np.log1p(x * x) - 0.5


def _slow_compiler(tmp_path, monkeypatch):
    """$CC becomes a compiler that sleeps a second first; the file it touches as it starts."""
    started = tmp_path / "started"
    cc = tmp_path / "slowcc"
    cc.write_text(SLOW.format(started=started, gcc=shutil.which("gcc") or shutil.which("cc")))
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    return started


def _wait_for(path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def _child_status(pid: int, seconds: float) -> int | None:
    """The child's exit status, or None (after killing it) when it did not finish in time."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return None


def test_fork_during_a_compile_the_childs_call_completes(tmp_path, monkeypatch):
    started = _slow_compiler(tmp_path, monkeypatch)
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    compiled = astcompile.compile(shifted_log)
    x = np.linspace(0, 2, 50)
    compiling = threading.Thread(target=compiled, args=(x,))
    compiling.start()
    _wait_for(started, 30)  # the thread now holds the region's and the kernel's locks
    pid = os.fork()
    if pid == 0:  # the child: its own first call of the same function
        try:
            os._exit(0 if np.allclose(compiled(x), shifted_log(x)) else 1)
        except BaseException:  # noqa: BLE001 - the child must exit, whatever happened
            os._exit(2)
    status = _child_status(pid, 60)
    compiling.join(timeout=60)
    assert status == 0, "the forked child hung or failed" if status is None else status


def test_fork_during_the_call_paths_build_the_childs_calls_complete(tmp_path, monkeypatch):
    """A thread builds the C-level call path (``runtime/fastcall.py``, holding its lock and a
    compiler run) when the process forks: the child asks for the extension itself, compiles
    a function of its own, and finishes."""
    from astcompile.runtime import fastcall

    started = _slow_compiler(tmp_path, monkeypatch)
    monkeypatch.setattr(fastcall, "_state", {})
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    building = threading.Thread(target=fastcall.extension, args=(str(tmp_path / "cache"),))
    building.start()
    _wait_for(started, 30)  # the thread now holds fastcall's lock, its compiler running
    pid = os.fork()
    if pid == 0:
        try:
            x = np.linspace(0, 2, 50)
            ok = fastcall.extension(str(tmp_path / "child")) is not None
            ok = ok and np.allclose(astcompile.compile(shifted_log)(x), shifted_log(x))
            os._exit(0 if ok else 1)
        except BaseException:  # noqa: BLE001 - the child must exit, whatever happened
            os._exit(2)
    status = _child_status(pid, 120)
    building.join(timeout=60)
    assert status == 0, "the forked child hung or failed" if status is None else status
    assert fastcall.loaded() is not None  # and the parent's build finished, untouched


def test_a_child_forked_during_the_call_paths_build_loads_its_parents(tmp_path, monkeypatch):
    """A pool's worker forked while its parent builds the C-level call path loads the
    extension the parent publishes, rather than running the compiler again (it never waits
    on the lock its parent held: it looks for the parent's entry)."""
    from astcompile.runtime import build, cache, fastcall

    cache_dir, compiler = str(tmp_path / "cache"), build.find_compiler()
    includes = fastcall._headers()
    key = "fastcall-" + fastcall._key(compiler, includes)
    entries = cache.ensure_cache_dir(cache_dir)
    holding, forked = threading.Event(), threading.Event()

    def parent_builds() -> None:
        with cache.build_lock(entries, key):
            holding.set()
            forked.wait(60)
            cache.store(entries, key, fastcall._builder(compiler, includes), fastcall._exists)

    builder = threading.Thread(target=parent_builds)
    builder.start()
    holding.wait(30)
    monkeypatch.setattr(fastcall, "_state", {})
    pid = os.fork()
    if pid == 0:
        try:
            build.compile_shared = None  # the child running the compiler fails here
            os._exit(0 if fastcall.extension(cache_dir) is not None else 1)
        except BaseException:  # noqa: BLE001 - the child must exit, whatever happened
            os._exit(2)
    forked.set()
    status = _child_status(pid, 120)
    builder.join(60)
    assert status == 0, "the forked child hung or failed" if status is None else status


def test_a_child_forked_during_the_background_build_takes_the_call_path(tmp_path, monkeypatch):
    """The regions of a pool's worker asked for the call path before the fork: the worker
    resumes the wait in a thread of its own (no call of it asks again), and loads what its
    parent's build publishes without running the compiler."""
    from astcompile.runtime import build, fastcall

    started = _slow_compiler(tmp_path, monkeypatch)
    monkeypatch.setattr(fastcall, "_state", {})
    fastcall.build_in_background(str(tmp_path / "cache"))
    _wait_for(started, 30)  # the parent's compiler runs, its lock held
    pid = os.fork()
    if pid == 0:
        try:
            build.compile_shared = None  # the child running the compiler fails here
            deadline = time.monotonic() + 90
            while fastcall.loaded() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            os._exit(0 if fastcall.loaded() is not None else 1)
        except BaseException:  # noqa: BLE001 - the child must exit, whatever happened
            os._exit(2)
    status = _child_status(pid, 120)
    fastcall._state["building"].join(60)
    assert status == 0, "the forked child hung or failed" if status is None else status


def test_a_child_does_not_wait_for_a_build_lock_its_parent_held(tmp_path):
    """The parent's thread holds a kernel's build lock when the process forks (it may be
    starting the compiler, whose exec-status pipe the child now holds a copy of: the parent
    waits for the child): the child builds without the lock instead of waiting for it."""
    from astcompile.runtime import cache

    entries = os.path.join(str(tmp_path), cache.FORMAT)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with cache.build_lock(entries, "ab" + "0" * 38):
            holding.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(30)
    pid = os.fork()
    if pid == 0:
        try:
            with cache.build_lock(entries, "ab" + "1" * 38):  # the same lock file
                os._exit(0)
        except BaseException:  # noqa: BLE001 - the child must exit, whatever happened
            os._exit(2)
    status = _child_status(pid, 20)
    release.set()
    holder.join(30)
    assert status == 0, "the child waited for its parent's build lock" if status is None else status


def test_a_fork_waits_while_another_thread_imports(tmp_path, monkeypatch):
    """A thread imports a module (as the compiler imports libcst, the tracer and the code
    generator on its first use) when the process forks: the fork waits for that import, and
    the child's own import of the module completes (it waited forever on the module's import
    lock, held by a thread the child does not have)."""
    import importlib
    import sys

    name = f"astc_slow_import_{os.getpid()}"
    (tmp_path / f"{name}.py").write_text("import time\n\ntime.sleep(0.5)\nVALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    importing = threading.Thread(target=importlib.import_module, args=(name,))
    importing.start()
    deadline = time.monotonic() + 30
    while name not in sys.modules:  # there once its code runs, under its import lock
        assert time.monotonic() < deadline, "the import never started"
        time.sleep(0.001)
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(0 if importlib.import_module(name).VALUE == 7 else 1)
        except BaseException:  # noqa: BLE001 - the child must exit, whatever happened
            os._exit(2)
    status = _child_status(pid, 30)
    importing.join(timeout=30)
    assert status == 0, "the forked child hung or failed" if status is None else status


def timed_fork() -> float:
    """Seconds ``os.fork`` took in the parent (the child exits at once)."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    taken = time.perf_counter() - start
    os.waitpid(pid, 0)
    return taken


def test_a_fork_does_not_wait_for_an_import_stuck_for_good(tmp_path, monkeypatch):
    """A thread's import never ends (it waits on an event at import time): the first fork
    waits IMPORT_WAIT for it, the later ones do not (each fork of a pool waited 5 s)."""
    import sys
    import types

    from astcompile.runtime import forksafe

    monkeypatch.setattr(forksafe, "IMPORT_WAIT", 0.3)
    gate, name = f"astc_gate_{os.getpid()}", f"astc_stuck_import_{os.getpid()}"
    monkeypatch.setitem(sys.modules, gate, types.SimpleNamespace(EVENT=threading.Event()))
    (tmp_path / f"{name}.py").write_text(f"import sys\n\nsys.modules[{gate!r}].EVENT.wait()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    importing = threading.Thread(target=__import__, args=(name,), daemon=True)
    importing.start()
    deadline = time.monotonic() + 30
    while name not in sys.modules:
        assert time.monotonic() < deadline, "the import never started"
        time.sleep(0.001)
    try:
        assert timed_fork() >= 0.3
        assert max(timed_fork() for _ in range(3)) < 0.25
    finally:
        sys.modules[gate].EVENT.set()
        importing.join(30)


def test_a_fork_inside_an_import_does_not_wait_for_its_own_waiters(tmp_path, monkeypatch):
    """A module forks while it is imported, and another thread's import waits for that module:
    that import cannot end before the fork, so the fork does not wait for it (it waited 5 s)."""
    import sys

    tag = os.getpid()
    outer, inner = f"astc_forks_{tag}", f"astc_waits_{tag}"
    (tmp_path / f"{inner}.py").write_text(f"import {outer}\n")
    (tmp_path / f"{outer}.py").write_text(
        "import sys, threading, time\n"
        f"waiter = threading.Thread(target=__import__, args=({inner!r},), daemon=True)\n"
        "waiter.start()\n"
        "deadline = time.monotonic() + 30\n"
        f"while {inner!r} not in sys.modules and time.monotonic() < deadline:\n"
        "    time.sleep(0.001)\n"
        "time.sleep(0.05)\n"
        f"TAKEN = sys.modules[{__name__!r}].timed_fork()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in (outer, inner):
        monkeypatch.delitem(sys.modules, module, raising=False)
    assert __import__(outer).TAKEN < 1.0
