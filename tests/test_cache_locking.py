"""The disk cache under many processes: those missing one kernel at once build it once."""

from __future__ import annotations

import functools
import multiprocessing
import os
import time

from astcompile.runtime import build, cache, load_library, loader
from tests.c_helpers import forked_results

SOURCE = "#include <stdint.h>\nint64_t locked_triple(int64_t x) { return 3 * x; }\n"
DECL = "int64_t locked_triple(int64_t);"
PROCESSES = 4


def _load_at_once(cache_dir: str, log: str, barrier, results) -> None:
    """One worker: wait for the others, then load the kernel; each build appends to ``log``."""
    real = build.compile_shared

    def slow_compile(*args, **kwargs):
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(0.3)  # long enough that every other process misses meanwhile
        real(*args, **kwargs)

    build.compile_shared = slow_compile
    barrier.wait()
    _, lib = load_library(SOURCE, DECL, cache_dir)
    results.put(lib.locked_triple(7))


def test_processes_missing_one_kernel_build_it_once(tmp_path):
    cache_dir, log = str(tmp_path / "cache"), str(tmp_path / "builds.log")
    barrier = multiprocessing.get_context("fork").Barrier(PROCESSES)
    load = functools.partial(_load_at_once, cache_dir, log, barrier)
    answers = forked_results(load, PROCESSES)
    assert answers == [21] * PROCESSES
    with open(log) as f:
        assert len(f.read().split()) == 1  # one build; the others waited and loaded it
    entries = os.path.join(cache_dir, cache.FORMAT)
    key = loader.library_key(SOURCE, build.find_compiler())
    assert cache.lookup(entries, key) is not None  # the entry matches its record
    assert not [n for n in os.listdir(entries) if n.startswith((".build-", ".tmp-"))]


def test_a_failed_build_releases_the_lock(tmp_path):
    """A build that raises leaves the lock free: the next process builds at once."""
    entries = os.path.join(str(tmp_path), cache.FORMAT)
    lock = cache.build_lock(entries, "ab" + "0" * 38)
    try:
        with lock:
            raise RuntimeError("the compiler failed")
    except RuntimeError:
        pass
    with cache.build_lock(entries, "ab" + "1" * 38) as again:
        assert again  # the same lock file (same first characters), free again


def test_a_child_looks_for_its_parents_build_until_the_lock_is_free(tmp_path):
    """``parents_build`` (a forked child whose parent held the lock): the entry as soon as it
    is published; None at once when the lock is free and nothing was published (the parent's
    build failed or died: the child builds); None after its time while the lock stays held."""
    import threading

    entries = cache.ensure_cache_dir(str(tmp_path))
    key = "cd" + "0" * 38
    start = time.monotonic()
    assert cache.parents_build(entries, key, 30.0) is None
    assert time.monotonic() - start < 5.0  # the lock was free: no wait for the time given
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with cache.build_lock(entries, key):
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(30)
    try:
        assert cache.parents_build(entries, key, 0.2) is None  # held all along: gives up
        path, _ = cache.store(entries, key, _writes_library, os.path.exists)
        assert cache.parents_build(entries, key, 30.0) == path
    finally:
        release.set()
        holder.join(30)


def _writes_library(out_path: str, workdir: str) -> None:
    with open(out_path, "wb") as f:
        f.write(b"\x7fELF not really")
