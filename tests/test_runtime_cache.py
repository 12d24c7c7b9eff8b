"""The runtime: disk cache (atomic, concurrent, corrupt entries, permissions), missing
compiler, and fork safety of the OpenMP kernels."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from astcompile.runtime import (
    CompilerNotFound,
    RuntimeBuildError,
    cache,
    load_library,
    loader,
)
from tests.c_helpers import forked_results
from tests.trust_helpers import flip_byte, truncate

SOURCE = textwrap.dedent("""
    #include <stdint.h>
    int64_t triple_{tag}(int64_t x) {{ return 3 * x; }}
""")


def _src(tag: str) -> tuple[str, str]:
    return SOURCE.format(tag=tag), f"int64_t triple_{tag}(int64_t);"


def _entries(cache_dir: str) -> list[str]:
    return sorted(os.listdir(os.path.join(cache_dir, cache.FORMAT)))


def test_build_then_disk_hit(tmp_path):
    src, decl = _src("a")
    _, lib = load_library(src, decl, str(tmp_path))
    assert lib.triple_a(5) == 15
    names = _entries(str(tmp_path))
    assert len(names) == 3 and {n.rsplit(".", 1)[1] for n in names} == {"so", "json", "c"}
    (c_file,) = [n for n in names if n.endswith(".c")]  # the source, kept for people to read
    with open(os.path.join(str(tmp_path), cache.FORMAT, c_file)) as f:
        assert f.read() == src
    loader._loaded.clear()  # as a new process would: served from disk, no compiler call
    key = loader.library_key(src, loader.build.find_compiler())
    assert cache.lookup(os.path.join(str(tmp_path), cache.FORMAT), key)
    assert load_library(src, decl, str(tmp_path))[1].triple_a(2) == 6


def test_cache_dir_is_private(tmp_path):
    target = tmp_path / "c"
    load_library(*_src("b"), str(target))
    assert (os.stat(target).st_mode & 0o777) == 0o700


def test_group_writable_cache_dir_is_refused(tmp_path):
    """Not an error: the kernel is built in a private temporary folder, with one warning that
    says why and names ASTCOMPILE_CACHE_DIR; nothing is read from or written to the folder."""
    target = tmp_path / "open"
    target.mkdir()
    os.chmod(target, 0o777)
    with pytest.warns(RuntimeWarning, match="writable by group and others.*ASTCOMPILE_CACHE_DIR"):
        _, lib = load_library(*_src("c"), str(target))
    assert lib.triple_c(2) == 6
    assert os.listdir(target) == []


def test_corrupt_entry_is_rebuilt(tmp_path):
    src, decl = _src("d")
    load_library(src, decl, str(tmp_path))
    entries = os.path.join(str(tmp_path), cache.FORMAT)
    so = next(n for n in os.listdir(entries) if n.endswith(".so"))
    os.unlink(os.path.join(entries, so))  # the loaded one stays mapped; a new file replaces it
    with open(os.path.join(entries, so), "wb") as f:
        f.write(b"not an ELF file")
    loader._loaded.clear()
    assert load_library(src, decl, str(tmp_path))[1].triple_d(7) == 21
    key = so[:-3]
    assert cache.lookup(entries, key)


@pytest.mark.parametrize("planted", ["a folder as the library", "a FIFO as its record"])
def test_what_is_no_regular_file_is_a_corrupt_entry_rebuilt(tmp_path, planted):
    """A folder in place of a ``.so`` (it cannot be unlinked), a FIFO in place of a ``.json``
    (opening it would wait forever): each is rebuilt, not an error at every call."""
    src, decl = _src("fifo" if "FIFO" in planted else "dir")
    load_library(src, decl, str(tmp_path))
    entries = tmp_path / cache.FORMAT
    key = loader.library_key(src, loader.build.find_compiler())
    path = entries / (key + (".json" if "FIFO" in planted else ".so"))
    path.unlink()
    if "FIFO" in planted:
        os.mkfifo(path, 0o600)
    else:
        (path / "inside").mkdir(parents=True)
    loader._loaded.clear()
    result = []
    call = threading.Thread(target=lambda: result.append(load_library(src, decl, str(tmp_path))))
    call.start()
    call.join(timeout=120)
    assert not call.is_alive(), "the load waits on a FIFO"
    assert result[0][1].__getattr__(f"triple_{'fifo' if 'FIFO' in planted else 'dir'}")(2) == 6
    assert path.is_file() and cache.lookup(str(entries), key)


def test_missing_compiler_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CC", raising=False)
    with pytest.raises(CompilerNotFound, match="needs gcc"):
        load_library(*_src("e"), str(tmp_path / "cache"))


def test_a_library_that_does_not_load_is_never_published(tmp_path, monkeypatch):
    fake = tmp_path / "fakecc"
    fake.write_text('#!/bin/sh\nwhile [ "$1" != "-o" ]; do shift; done\necho garbage > "$2"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    with pytest.raises(RuntimeBuildError, match="could not load"):
        load_library(*_src("g"), str(tmp_path / "cache"))
    assert _entries(str(tmp_path / "cache")) == []  # no entry, no leftover build folder


def test_a_missing_function_is_a_build_error_and_never_published(tmp_path):
    src, decl = _src("h")
    with pytest.raises(RuntimeBuildError, match="lacks the function nowhere"):
        load_library(src, decl + " int64_t nowhere(int64_t);", str(tmp_path))
    assert _entries(str(tmp_path)) == []


_LOAD = """
import sys
sys.path.insert(0, {root!r})
from astcompile.runtime import load_library
for tag, src, decl in {kernels!r}:
    print(getattr(load_library(src, decl, {cache!r})[1], "triple_" + tag)(7))
"""


def test_truncated_and_bit_flipped_libraries_are_rebuilt_in_a_new_process(tmp_path):
    kernels = [("t", *_src("t")), ("f", *_src("f"))]
    for _, src, decl in kernels:
        load_library(src, decl, str(tmp_path))
    entries = str(tmp_path / cache.FORMAT)
    compiler = loader.build.find_compiler()
    keys = [loader.library_key(src, compiler) for _, src, _ in kernels]
    truncate(os.path.join(entries, keys[0] + ".so"))
    flip_byte(os.path.join(entries, keys[1] + ".so"))
    assert [cache.lookup(entries, key) for key in keys] == [None, None]  # never opened
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _LOAD.format(root=root, kernels=kernels, cache=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["21", "21"]
    assert all(cache.lookup(entries, key) for key in keys)  # rebuilt in place


def test_missing_compiler_maps_to_compile_error(tmp_path, monkeypatch):
    from astcompile.errors import CompileError
    from astcompile.targets.c.c_backend import CBackend
    from astcompile.trace.tracer import trace_callable

    graph = trace_callable(lambda x: x * 3.0 + 1.0, [np.ones(3)])
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CompileError, match="no C compiler"):
        CBackend(cache_dir=str(tmp_path / "cache")).compile(graph)


_RACE = """
import sys
sys.path.insert(0, {root!r})
from astcompile.runtime import load_library
src = "#include <stdint.h>\\nint64_t race(int64_t x) {{ return x + 1; }}\\n"
print(load_library(src, "int64_t race(int64_t);", {cache!r})[1].race(41))
"""


def test_two_processes_build_the_same_kernel_at_once(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _RACE.format(root=root, cache=str(tmp_path))
    procs = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert outs == ["42"] * 3
    names = _entries(str(tmp_path))
    assert len(names) == 3, names  # one entry (.so, .json, .c), no temp directories left behind


def _child_runs_kernel(queue) -> None:
    from astcompile.runtime import nthreads

    x = np.random.default_rng(0).random(1 << 20)
    queue.put((nthreads(), float(_COMPILED([x])[0])))


_COMPILED = None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_children_run_kernels_single_threaded(tmp_path):
    global _COMPILED
    from astcompile.targets.c.c_backend import CBackend
    from astcompile.trace.tracer import trace_callable

    x = np.random.default_rng(0).random(1 << 20)
    graph = trace_callable(lambda x: np.sum(np.exp(x)), [x])
    _COMPILED = CBackend(cache_dir=str(tmp_path)).compile(graph)
    expected = float(_COMPILED([x])[0])  # the parent's OpenMP pool is now alive
    results = forked_results(_child_runs_kernel)
    assert all(n == 1 and np.isclose(v, expected) for n, v in results)
