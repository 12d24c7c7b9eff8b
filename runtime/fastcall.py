"""The C-level call path of compiled flat regions: build, cache and load its extension.

A region called from a Python loop pays, per call, for its guard function, ``ffi.from_buffer``
per array, cffi's ABI-mode call (libffi), ``np.empty`` and the wrapper's own lines: about
4 µs where the work is nanoseconds. ``fastcall.c`` does all of it in one C call: a ``Guards``
object replaces the region's Python guard function, runs each entry's program (assembled by
:mod:`fastcall_program` from the entry's guard key and its wrapper's fast plan) and calls the
kernels through their packed entries; whatever it cannot decide goes to the Python guard
function, unchanged (same checks, same results, same exceptions).

The same extension holds ``Switch`` (``fastcall_switch.c``), the C base of compiled functions:
a call runs one route, the measured path or, once measuring chose it, the user's function
alone, through vectorcall (about 10 ns over calling the function, against 30-120 ns for a
class whose ``__call__`` is the function). A compiled function made while the extension is not
loaded yet is a plain Python object: it switches its class instead, and takes a Switch as its
class's ``__call__`` once the extension is loaded (``jit/routes.py``, told by :func:`when_loaded`).

The extension is built from its C files once per machine (per Python, NumPy and compiler)
with the Python and NumPy headers, kept in the kernel cache under the same key, lock, trust and
integrity rules as kernels (:mod:`cache`), and imported from there. Where it cannot be built
(no compiler, no headers, a refused cache) regions keep their Python guard functions: slower,
never different. The first build costs about half a second of compiler time, so it is never
built in a call: a region takes it from the cache when it is there, and asks for a build in
the background (:func:`build_in_background`) once its entries have run many times
(``PROMOTE_AFTER``), as does the first function measuring sends to the plain path; the calls
go on meanwhile on the Python path, and take the C one when the build is done. That build has
the kernels' deadline (``config.build_timeout``) and their process-group handling
(:mod:`build`): a compiler that hangs is killed at the timeout, and the process keeps its
Python path.

Part of the runtime: must not import the compiler.
"""

from __future__ import annotations

import atexit
import importlib.machinery
import importlib.util
import logging
import os
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from . import build, cache, forksafe, fpflags, parallel
from .errors import CompilerNotFound, RuntimeBuildError

_HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = tuple(
    os.path.join(_HERE, name)
    for name in (
        "fastcall.c",
        "fastcall_switch.c",
        "fastcall_bind.c",
        "fastcall_sole.c",
        "fastcall_lists.c",
        "fastcall_views.c",
    )
)
MODULE = "astcompile_fastcall"
FLAGS = ("-O2", "-fPIC", "-shared", "-fwrapv", "-fno-strict-aliasing")
LIBS = ("-lm",)  # feclearexcept, fetestexcept
#: Compiled calls of a region's entries before it asks for the extension (built once per
#: machine): a function called a few times never waits for that compiler run.
PROMOTE_AFTER = 64
#: Seconds the program's exit waits for a background build of the extension (about 0.5 s of
#: compiler time) before it kills it.
EXIT_WAIT = 2.0
#: Seconds a forked child (a pool's worker) waits for the build its parent had under way when
#: it forked, before it runs the compiler itself (the parent's takes 0.5-3 s).
PARENT_WAIT = 15.0

_log = logging.getLogger("astcompile")
_lock = forksafe.module_lock(__name__)
_state: dict[str, Any] = {}  # "module": the loaded extension, or None once it failed
_listeners: list[Callable[[], None]] = []  # told once it is loaded (:func:`when_loaded`)
_listening = forksafe.module_lock(__name__, "_listening")


def loaded() -> ModuleType | None:
    """The extension when this process has it already (no build, no disk access)."""
    return _state.get("module")


def tried() -> bool:
    """Whether this process has asked for the extension (and got it, or learnt it cannot)."""
    return "module" in _state


def asked() -> bool:
    """Whether this process has the extension, knows it cannot, or is building it."""
    return tried() or "building" in _state


def when_loaded(then: Callable[[], None]) -> None:
    """Call ``then()`` once the extension is loaded, in the thread that loads it: at once
    where it is, never where it cannot be."""
    with _listening:
        if not tried():
            if then not in _listeners:  # told once, however often asked
                _listeners.append(then)
            return
    if loaded() is not None:
        then()


def _tell(module: ModuleType | None) -> None:
    with _listening:
        told = list(_listeners)
        _listeners.clear()
    for then in told if module is not None else ():
        then()


def extension(cache_dir: str, build_it: bool = True) -> ModuleType | None:
    """The extension, built into ``cache_dir``'s kernel cache on first use; None (remembered
    for the process) when it cannot be built or loaded. ``build_it=False``: only when it is
    in the cache already (looked up once per process and cache folder: the first compiled
    function asks before a program may set ``config.cache_dir``), never running the compiler,
    nor waiting for a build under way."""
    if "module" in _state or not _lock.acquire(blocking=build_it):
        return _state.get("module")
    try:
        looked = _state.setdefault("looked", set())
        if "module" in _state or (not build_it and cache_dir in looked):
            return _state.get("module")
        try:
            module = _load_or_build(cache_dir, build_it)
        except (OSError, ImportError, CompilerNotFound, RuntimeBuildError) as exc:
            _log.debug("astcompile: the C-level call path is unavailable: %s", exc)
            module, build_it = None, True
        looked.add(cache_dir)
        if module is not None:
            fpflags.use(module.fp_clear, module.fp_raised)
        if module is not None or build_it:
            _state["module"] = module
    finally:
        _lock.release()
    if "module" in _state:
        _tell(module)
    return module


def switch_type() -> type | None:
    """``Switch``, the C base of compiled functions, when the extension is loaded."""
    module = loaded()
    return None if module is None else module.Switch


def build_in_background(cache_dir: str) -> None:
    """Build the extension without waiting for it, once per process (a region whose entries
    ran ``PROMOTE_AFTER`` times asks, and a function measuring sent to the plain path; what
    waits for it is told by :func:`when_loaded`). Exit stops a build under way, so that no
    compiler is left writing into the cache."""
    if asked():
        return
    thread = threading.Thread(
        target=_build, args=(cache_dir,), name="astcompile-fastcall-build", daemon=True
    )
    _state["building"], _state["building_in"] = thread, cache_dir
    thread.start()
    atexit.register(_stop, thread)


def _build(cache_dir: str) -> None:
    """The build thread: it lets the thread that started it go on first (else that one waits
    for the interpreter's switch interval, 5 ms, inside the call that asked)."""
    time.sleep(0)
    extension(cache_dir)


def _forget_build_in_child() -> None:
    """A child forked while the extension builds has no build thread: it starts its own,
    which loads the extension its parent's build publishes (builds it only where that build
    fails: :func:`cache.parents_build`). Its regions asked before the fork and wait for it
    (:func:`when_loaded`): a pool's workers would keep their Python path for good."""
    thread, cache_dir = _state.pop("building", None), _state.pop("building_in", None)
    if thread is not None and cache_dir is not None and not tried():
        build_in_background(cache_dir)


os.register_at_fork(after_in_child=_forget_build_in_child)


def _stop(thread: threading.Thread) -> None:
    """At exit: a build under way gets ``EXIT_WAIT`` seconds to finish, so that the next
    process finds the extension in the cache (a program whose runs are all short would build
    it in each, never using it); then its compiler is killed (the thread then removes its
    build folder) rather than keep the program waiting for an optional speed-up."""
    thread.join(EXIT_WAIT)
    if thread.is_alive():
        build.stop_running()
        thread.join(1.0)


def _headers() -> tuple[str, ...]:
    """Include folders of Python and NumPy, or an error naming what is missing."""
    python = sysconfig.get_paths().get("include") or ""
    if not os.path.exists(os.path.join(python, "Python.h")):
        raise RuntimeBuildError(f"no Python.h in {python!r}")
    return (f"-I{python}", f"-I{np.get_include()}")


def _source() -> str:
    """The extension's C: fastcall.c, then the files it declares and leaves to be appended."""
    parts = []
    for path in SOURCES:
        with open(path) as f:
            parts.append(f.read())
    return "\n".join(parts)


def _key(compiler: str, includes: tuple[str, ...]) -> str:
    source = _source()
    abi = sysconfig.get_config_var("EXT_SUFFIX") or sys.implementation.cache_tag
    return cache.cache_key(
        source, " ".join(FLAGS + includes + LIBS), build.compiler_id(compiler), abi, np.__version__
    )


def _load_or_build(cache_dir: str, build_it: bool) -> ModuleType | None:
    compiler = build.find_compiler()
    includes = _headers()
    key = "fastcall-" + _key(compiler, includes)
    entries = cache.ensure_cache_dir(cache_dir)
    path = cache.lookup(entries, key)
    if path is None:
        if not build_it:
            return None
        with cache.build_lock(entries, key) as held:  # other processes: one builds, the rest load
            path = cache.lookup(entries, key)
            if path is None and held is None:  # forked while the parent built it: its .so
                path = cache.parents_build(entries, key, PARENT_WAIT)
            if path is None:
                cache.evict(entries, key)
                path, _ = cache.store(entries, key, _builder(compiler, includes), _exists)
    try:
        return _import(path)
    except ImportError:
        cache.evict(entries, key)
        raise


def _builder(compiler: str, includes: tuple[str, ...]) -> Callable[[str, str], None]:
    def run(out_path: str, workdir: str) -> None:
        timeout = _timeout()
        build.compile_shared(
            _source(), out_path, workdir, compiler, timeout, FLAGS + includes, LIBS
        )

    return run


def _timeout() -> float | None:
    """The kernels' limit (``config.build_timeout``): a compiler that hangs is killed then,
    and the process runs on its Python path for good."""
    from astcompile import config

    return config.build_timeout or None


def _exists(path: str) -> str:
    if not os.path.exists(path):
        raise RuntimeBuildError(f"the compiler wrote no {path}")
    return path


def _import(path: str) -> ModuleType:
    loader = importlib.machinery.ExtensionFileLoader(MODULE, path)
    spec = importlib.util.spec_from_file_location(MODULE, path, loader=loader)
    if spec is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def guards(programs: list[tuple[bytes, tuple, int]], fallback: Callable, stats: Any) -> Callable:
    """A callable standing for ``fallback`` (a region's Python guard function) that runs the
    first of ``programs`` whose checks hold in C, and calls ``fallback`` otherwise."""
    module = loaded()
    if module is None or not programs:
        return fallback
    return module.Guards(programs, fallback, stats, vars(parallel))
