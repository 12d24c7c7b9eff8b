"""The user's cache kept under a size (runtime/evict.py): least recently used first, never what
was used in the grace period, one sweeping process at a time."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import filelock
import pytest

from astcompile.runtime import cache, evict, load_library, loader, trust

SOURCE = "#include <stdint.h>\nint64_t triple_{tag}(int64_t x) {{ return 3 * x + {tag}; }}\n"


def _src(tag: int) -> tuple[str, str]:
    return SOURCE.format(tag=tag), f"int64_t triple_{tag}(int64_t);"


@pytest.fixture(autouse=True)
def _new_process(monkeypatch):
    """Libraries are looked up on disk, as in a new process (not served from memory)."""
    monkeypatch.setattr(loader, "_loaded", {})
    evict.reset_counter()


def _key(tag: int) -> str:
    return loader.library_key(_src(tag)[0], loader.build.find_compiler())


def _total(cache_dir) -> int:
    return sum(e.size for e in evict.scan(str(cache_dir))[0])


def _age(path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def _file(path, size: int, age: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    _age(path, age)


def test_size_limit_is_kept_over_many_distinct_kernels(tmp_path, monkeypatch):
    monkeypatch.setattr(evict, "GRACE_SECONDS", 0.0)
    libs = [load_library(*_src(0), str(tmp_path))[1]]
    limit = 3 * _total(tmp_path) + 100  # room for three kernels (their sizes differ by bytes)
    for tag in range(1, 9):
        libs.append(load_library(*_src(tag), str(tmp_path), max_bytes=limit)[1])
        assert _total(tmp_path) <= limit
    kept = {p[:-3] for p in os.listdir(tmp_path / cache.FORMAT) if p.endswith(".so")}
    assert kept == {_key(tag) for tag in (6, 7, 8)}  # the most recently used
    assert [lib.__getattr__(f"triple_{i}")(1) for i, lib in enumerate(libs)] == [
        3 + i for i in range(9)
    ]  # what is loaded keeps working


def test_least_recently_used_first_across_sections_and_grace(tmp_path):
    c = tmp_path / cache.FORMAT
    _file(c / "old.so", 1000, 4000)
    _file(c / "old.json", 50, 3600)
    cache.touch(str(c / "old.json"))  # being looked up now: a kernel's last use is its files'
    _file(c / "new.so", 100, 0)  # only written (its writer has it loaded): not exempt
    _file(c / "older.so", 1000, 3000)
    _file(c / "older.json", 50, 3000)
    _file(tmp_path / cache.WARM / "regions" / "r.pkl", 500, 2000)
    _file(tmp_path / cache.WARM / "frontend" / "f.json", 200, 1000)
    _file(c / ".build-abc" / "kernels.c", 10, 3600)  # a killed build's leftovers (no owner)
    _file(tmp_path / cache.WARM / "regions" / ".tmp-new", 10, 5)
    _age(c / ".build-abc", 3600)
    freed = evict.sweep(str(tmp_path), max_bytes=1100)
    assert sorted(os.listdir(c)) == ["old.json", "old.so"]  # in its grace period
    assert os.listdir(tmp_path / cache.WARM / "regions") == [".tmp-new"]  # young leftover
    assert not (tmp_path / cache.WARM / "frontend" / "f.json").exists()
    assert freed == 1050 + 500 + 200 + 100 + 10


def test_a_sweep_skips_while_another_process_sweeps(tmp_path):
    _file(tmp_path / cache.FORMAT / "k.so", 1000, 4000)
    with filelock.FileLock(str(tmp_path / evict.LOCK_FILE)):
        assert evict.sweep(str(tmp_path), max_bytes=1) == 0
    assert evict.sweep(str(tmp_path), max_bytes=1) == 1000


def test_sweeps_after_the_first_build_then_when_the_ledger_is_over(tmp_path, monkeypatch):
    swept = []
    real = evict.sweep
    monkeypatch.setattr(evict, "sweep", lambda d, m: swept.append(n) or real(d, m))
    ledger = []
    for n in range(5):
        lib = tmp_path / cache.FORMAT / f"k{n}.so"
        _file(lib, 300, 0 if n > 1 else 3600)  # k0 and k1 idle for an hour, the rest just built
        evict.after_build(str(tmp_path), 1000, str(lib))
        ledger.append(evict.ledger_total(str(tmp_path)))
    assert swept == [0, 3, 4]  # the first build, then each build the ledger finds over 1000
    assert ledger == [300, 600, 900, 900, 900]  # each of those sweeps removed an idle kernel
    assert sorted(os.listdir(tmp_path / cache.FORMAT)) == ["k2.so", "k3.so", "k4.so"]


_LOADER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from astcompile.runtime import load_library
    lib = load_library({src!r}, {decl!r}, {cache!r})[1]
    print("loaded", flush=True)
    sys.stdin.readline()
    print(lib.triple_0(7), flush=True)
""")


def test_an_entry_another_process_is_loading_is_never_evicted(tmp_path, monkeypatch):
    """Every entry is an hour old; another process loads one, then this one sweeps with a
    limit of one byte: everything goes but the entry being loaded (it was touched at its
    look-up, so it is in its grace period), and the other process runs it."""
    monkeypatch.setattr(evict, "GRACE_SECONDS", 60.0)  # this machine may be slow: the rule
    for tag in range(3):
        load_library(*_src(tag), str(tmp_path))
    for name in os.listdir(tmp_path / cache.FORMAT):
        _age(tmp_path / cache.FORMAT / name, 3600)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _LOADER.format(root=root, src=_src(0)[0], decl=_src(0)[1], cache=str(tmp_path))
    other = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert other.stdout.readline().strip() == "loaded"
        evict.sweep(str(tmp_path), max_bytes=1)
        kept = sorted(os.listdir(tmp_path / cache.FORMAT))
        assert kept == [_key(0) + ".c", _key(0) + ".json", _key(0) + ".so"]
        out, _ = other.communicate("\n", timeout=60)
    finally:
        other.kill()
    assert out.strip() == "21" and other.returncode == 0


def test_no_limit_sweeps_only_the_leftovers_of_dead_builds(tmp_path, monkeypatch):
    dead = subprocess.Popen(["true"])
    dead.wait()
    mine = trust.leftover_prefix(".build")
    theirs = tmp_path / cache.FORMAT / (mine.replace(f"-{os.getpid()}-", f"-{dead.pid}-") + "x")
    _file(theirs / "kernels.c", 10, 0)  # a killed build, a moment ago
    _file(tmp_path / cache.FORMAT / (mine + "y") / "kernels.c", 10, 0)  # ours, under way
    _file(tmp_path / cache.FORMAT / ".build-old" / "kernels.c", 10, 0)  # no owner named
    load_library(*_src(42), str(tmp_path), max_bytes=0)  # this process's first build
    left = sorted(p for p in os.listdir(tmp_path / cache.FORMAT) if p.startswith(".build"))
    assert left == sorted([".build-old", mine + "y"])
    assert len(os.listdir(tmp_path / cache.FORMAT)) == 5  # and the new kernel, all kept


_BUILDER = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    from astcompile.runtime import evict, load_library
    worst = 0
    for tag in range({first}, {first} + {count}):
        src = "#include <stdint.h>\\nint64_t f_%d(int64_t x) {{ return x + %d; }}\\n" % (tag, tag)
        load_library(src + "char pad_%d[8000];\\n" % tag, "int64_t f_%d(int64_t);" % tag,
                     {cache!r}, max_bytes={limit})
        worst = max(worst, sum(e.size for e in evict.scan({cache!r})[0]))
    print(worst)
""")


def test_the_bound_holds_while_processes_build_at_once(tmp_path):
    """Three processes build ten distinct kernels each into a cache bounded at about eight:
    the size each sees after each of its builds stays within 1.5 times the bound (the grace
    period is the only slack: an entry another process is loading right now)."""
    load_library(*_src(0), str(tmp_path))
    limit = 8 * _total(tmp_path)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _BUILDER.format(
                    root=root, first=100 * (i + 1), count=10, cache=str(tmp_path), limit=limit
                ),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(3)
    ]
    worst = [int(p.communicate(timeout=300)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert max(worst) <= 1.5 * limit, (worst, limit)
    assert _total(tmp_path) <= 1.5 * limit
