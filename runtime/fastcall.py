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
loaded yet is a plain Python object and switches its class instead (``jit/routes.py``); the
first function that measuring sends to the plain path asks for the extension in the
background (:func:`build_in_background`), for the functions compiled after it.

The extension is built from its C files once per machine (per Python, NumPy and compiler)
with the Python and NumPy headers, kept in the kernel cache under the same key, trust and
integrity rules as kernels (:mod:`cache`), and imported from there. Where it cannot be built
(no compiler, no headers, a refused cache) regions keep their Python guard functions: slower,
never different. The first build costs about half a second of compiler time, so a region takes
it from the cache when it is there and asks for a build only once its entries have run many
times (``PROMOTE_AFTER``). That build has the kernels' deadline (``config.build_timeout``) and
their process-group handling (:mod:`build`): a compiler that hangs holds that call at most the
timeout, then the region keeps its Python path for the rest of the process.

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
    )
)
MODULE = "astcompile_fastcall"
FLAGS = ("-O2", "-fPIC", "-shared", "-fwrapv", "-fno-strict-aliasing")
LIBS = ("-lm",)  # feclearexcept, fetestexcept
#: Compiled calls of a region's entries before it asks for the extension (built once per
#: machine): a function called a few times never waits for that compiler run.
PROMOTE_AFTER = 64

_log = logging.getLogger("astcompile")
_lock = forksafe.module_lock(__name__)
_state: dict[str, Any] = {}  # "module": the loaded extension, or None once it failed


def loaded() -> ModuleType | None:
    """The extension when this process has it already (no build, no disk access)."""
    return _state.get("module")


def tried() -> bool:
    """Whether this process has asked for the extension (and got it, or learnt it cannot)."""
    return "module" in _state


def extension(cache_dir: str, build_it: bool = True) -> ModuleType | None:
    """The extension, built into ``cache_dir``'s kernel cache on first use; None (remembered
    for the process) when it cannot be built or loaded. ``build_it=False``: only when it is
    in the cache already (looked up once per process and cache folder: the first compiled
    function asks before a program may set ``config.cache_dir``), never running the compiler,
    nor waiting for a build under way."""
    if not _lock.acquire(blocking=build_it):
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
        return module
    finally:
        _lock.release()


def switch_type() -> type | None:
    """``Switch``, the C base of compiled functions, when the extension is loaded."""
    module = loaded()
    return None if module is None else module.Switch


def build_in_background(cache_dir: str) -> None:
    """Build the extension without waiting for it, once per process (a function measuring
    sent to the plain path asks: the functions compiled after it is built, here or in a
    later process, run that path through ``Switch``). Exit stops a build under way, so that
    no compiler is left writing into the cache."""
    if tried() or "building" in _state:
        return
    thread = threading.Thread(
        target=extension, args=(cache_dir,), name="astcompile-fastcall-build", daemon=True
    )
    _state["building"] = thread
    thread.start()
    atexit.register(_stop, thread)


def _stop(thread: threading.Thread) -> None:
    """At exit: end a build under way (its compiler killed; the thread then removes its
    build folder) rather than keep the program waiting for an optional speed-up."""
    build.stop_running()
    thread.join(10.0)


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
    """The kernels' limit (``config.build_timeout``): a call that asked for the extension
    waits at most that for a compiler that hangs, then runs on its Python path for good."""
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
