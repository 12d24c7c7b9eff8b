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
    started = tmp_path / "started"
    cc = tmp_path / "slowcc"
    cc.write_text(SLOW.format(started=started, gcc=shutil.which("gcc") or shutil.which("cc")))
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
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

    started = tmp_path / "started"
    cc = tmp_path / "slowcc"
    cc.write_text(SLOW.format(started=started, gcc=shutil.which("gcc") or shutil.which("cc")))
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
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
