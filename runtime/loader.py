"""Build-or-load a kernel library and open it with cffi in ABI mode.

``load_library(source, cdecls, cache_dir)`` is the runtime's one entry point: it hashes the
source, returns an already-loaded library from memory, else a valid disk-cache entry, else builds
it (one compiler call for all kernels of a region) and caches it. Thread-safe, one build per
library at a time, and fork-safe (a child gets its locks back unlocked: :mod:`forksafe`).

Whatever goes wrong between the compiler and the first call (the library does not load, a
declared function is missing from it) raises :class:`RuntimeBuildError`, which the compiler
turns into ``CompileError`` (so ``suppress_errors`` runs the region in NumPy), and nothing is
published to the cache.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import cffi

from . import artifacts, build, cache, evict, forksafe
from .errors import RuntimeBuildError
from .timing import phase, waiting

_loaded: dict[str, tuple[Any, Any]] = {}  # key -> (ffi, lib); keeps libraries alive
_paths: dict[int, str] = {}  # id(lib) -> the shared object it was opened from
_lock = forksafe.module_lock(__name__)
_key_locks: dict[str, threading.Lock] = {}  # one per library: different kernels build in parallel
os.register_at_fork(after_in_child=_key_locks.clear)


def library_key(source: str, compiler: str | None) -> str:
    compiler_part = build.compiler_id(compiler) if compiler else "no-compiler"
    flags = " ".join(build.CFLAGS + build.LIBS)
    return cache.cache_key(
        source, flags, compiler_part, build.cpu_features(), build.headers_digest()
    )


def load_library(
    source: str, cdecls: str, cache_dir: str, *, timeout: float | None = None, max_bytes: int = 0
) -> tuple[Any, Any]:
    """``(ffi, lib)`` for ``source``, whose functions are declared by ``cdecls``.

    ``timeout``: seconds the compiler may take (None: no limit); ``max_bytes``: the size the
    cache is kept under after builds (0: no limit, see :mod:`evict`)."""
    try:
        compiler: str | None = build.find_compiler()
    except build.CompilerNotFound:
        compiler = None
    key = library_key(source, compiler)
    with _lock:
        key_lock = _key_locks.setdefault(key, threading.Lock())
    with key_lock:
        if key in _loaded:
            return _loaded[key]
        with phase("load"):
            entries = cache.ensure_cache_dir(cache_dir)
            path = cache.lookup(entries, key)
            loaded = _try_open(path, cdecls) if path else None
        if loaded is None:
            if compiler is None:
                build.find_compiler()  # raises CompilerNotFound with the explanation
            with cache.build_lock(entries, key):  # other processes: one builds, the rest load
                path = cache.lookup(entries, key)
                loaded = _try_open(path, cdecls) if path else None
                if loaded is None:
                    path, loaded = _build(entries, key, source, cdecls, compiler, timeout)
                    cache.keep_source(path, source)
                    evict.after_build(os.path.dirname(entries), max_bytes, path)
        cache.keep_source(path, source)
        _loaded[key] = loaded
        _paths[id(loaded[1])] = os.path.abspath(path)
        return loaded


def _build(
    entries: str, key: str, source: str, cdecls: str, compiler: str, timeout: float | None
) -> tuple[str, tuple[Any, Any]]:
    cache.evict(entries, key)
    try:
        with phase("build"):
            return cache.store(
                entries,
                key,
                _builder(source, cdecls, compiler, timeout),
                lambda p: _open(p, cdecls),
            )
    finally:
        _parsed.pop(cdecls, None)  # the build failed before opening it


def library_path(lib: Any) -> str | None:
    """The shared object a library returned by :func:`load_library` was opened from."""
    return _paths.get(id(lib))


def _builder(source: str, cdecls: str, compiler: str, timeout: float | None):
    def run(out_path: str, workdir: str) -> None:
        ahead = threading.Thread(target=_parse_ahead, args=(cdecls,), daemon=True)
        ahead.start()
        try:
            with waiting():
                build.compile_shared(source, out_path, workdir, compiler, timeout)
        finally:
            ahead.join()  # before _build forgets what it parsed

    return run


#: FFIs that parsed a library's declarations while the compiler built it (:func:`_open`
#: takes its one), by the declarations.
_parsed: dict[str, Any] = {}


def _parse_ahead(cdecls: str) -> None:
    """What comes after the compiler and needs only the declarations, done while it runs, on a
    core it leaves idle: the FFI that opens the new library (``cdef``) and the module its record
    keeps (:func:`artifacts.ffi_module_source`), each a parse of C with cffi's parser (a few ms
    each, and the parser's import on a process's first build: 10 ms)."""
    try:
        with _parsing:
            ffi = cffi.FFI()
            ffi.cdef(cdecls)
            _parsed[cdecls] = ffi
            artifacts.ffi_module_source(cdecls)
    except Exception:  # noqa: BLE001 - the caller's own parse raises it, in its own thread
        return


#: Held while :func:`_parse_ahead` parses; ``os.fork`` takes it first. The parse holds cffi's
#: parser lock (module-level in cffi.cparser, not an import lock: forksafe's import wait does
#: not see it) and, on a process's first build, imports: a child forked meanwhile inherited
#: those locks, held by a thread it does not have, and hung at its own first build.
_parsing = forksafe.module_lock(__name__, "_parsing")
os.register_at_fork(before=lambda: _parsing.acquire(), after_in_parent=lambda: _parsing.release())


def _open(path: str, cdecls: str) -> tuple[Any, Any]:
    """Open a library and resolve every function it declares, or raise RuntimeBuildError."""
    ffi = _parsed.pop(cdecls, None)
    if ffi is None:
        ffi = cffi.FFI()
        ffi.cdef(cdecls)
    try:
        lib = ffi.dlopen(os.path.abspath(path))
    except OSError as exc:
        raise RuntimeBuildError(f"built {path} but could not load it: {exc}") from exc
    return ffi, artifacts.resolved(lib, path)


def _try_open(path: str, cdecls: str) -> tuple[Any, Any] | None:
    try:
        return _open(path, cdecls)
    except RuntimeBuildError:
        return None
