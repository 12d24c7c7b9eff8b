"""Persisted artifacts: where they live, the ahead-of-time manifest, and loading a built kernel.

Two kinds of store hold the same files: the user's cache (``<cache_dir>/warm-v1``, kernels in
``<cache_dir>/c-v1``), written on every compile, and ``__astcache__/`` beside a package's
modules, written by ``astcompile build`` (kernels in ``__astcache__/kernels``)::

    __astcache__/manifest.json        versions, compiler, CPU flags, functions -> entries
    __astcache__/frontend/<key>.json  a function's rewritten source and regions
    __astcache__/regions/<key>.pkl    traced, compiled region entries for one guard key
    __astcache__/kernels/<key>.so     their kernels (``<key>.c`` beside each: its source)

Loading needs no C compiler and no libcst: a kernel library is opened with cffi's out-of-line
ABI module (generated once, at build time), so not even cffi's C parser is imported. A manifest
written on another machine or by other versions is refused with a reason (:func:`check_manifest`).

Every file is read through a :class:`Store`, under the trust rules of :mod:`trust` (a pickle or
a source someone else could have written is never loaded), and a kernel is opened only when it
has the size and SHA-256 its entry recorded when it was built (:meth:`Store.library`).

Part of the runtime: must not import the compiler or libcst.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import sys
import tempfile
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import build, cache, evict, forksafe, trust
from .errors import RuntimeBuildError, UnsafeCacheDir

ARTIFACT_DIR = "__astcache__"
MANIFEST = "manifest.json"
MANIFEST_FORMAT = "astcache-v1"
#: /proc/cpuinfo flags that name instruction-set extensions ``-march=native`` may use.
_ISA_PREFIXES = (
    "sse",
    "ssse3",
    "pni",
    "avx",
    "fma",
    "f16c",
    "bmi",
    "abm",
    "lzcnt",
    "popcnt",
    "movbe",
    "aes",
    "vaes",
    "pclmulqdq",
    "vpclmulqdq",
    "sha_ni",
    "adx",
    "gfni",
    "amx",
    "xsave",
    "rdrand",
    "rdseed",
    "cx16",
    "prfchw",
    "clflushopt",
    "clwb",
)
_lock = forksafe.module_lock(__name__)
_libraries: dict[str, tuple[Any, Any]] = {}  # .so path -> (ffi, lib); keeps them alive
_manifests: dict[str, tuple[dict | None, str]] = {}  # folder -> (manifest or None, why not)


@dataclass(frozen=True)
class Store:
    """A folder of persisted entries (``root``) and the folder of their kernels.

    ``base`` is where the trust rules start (:mod:`trust`): the user's cache folder, or
    ``__astcache__`` (``shared``: shipped with a package, so readable by all, and the package
    folder that holds it is checked too). Entries are read and kernels opened only through it."""

    root: str
    kernels: str
    base: str
    shared: bool = False

    @property
    def modes(self) -> trust.Modes:
        return trust.SHARED if self.shared else trust.PRIVATE

    def path(self, kind: str, name: str) -> str:
        return os.path.join(self.root, kind, name)

    def read(self, kind: str, name: str) -> bytes | None:
        """An entry's bytes when it and the folders down to it pass the trust rules."""
        path = self.path(kind, name)
        if not trust.trusted_folder(os.path.dirname(path), self.base, self.shared):
            return None
        data = trust.read_file(path)
        if data is not None and not self.shared:
            cache.touch(path)
        return data

    def write(self, kind: str, name: str, data: bytes) -> None:
        """Write an entry atomically, creating its folders with this store's modes."""
        path = self.path(kind, name)
        trust.make_folders(os.path.dirname(path), self.base, self.modes.folder)
        trust.write_file(path, data, self.modes.file)
        if not self.shared:  # the user's cache: counted against its size (evict.py)
            evict.account(self.base, len(data))

    def add_library(self, path: str) -> tuple[str, int, str]:
        """Put the kernel library ``path`` among this store's kernels (copied with its C
        source, unless it is there already); its name, size and SHA-256, for the record of the
        entry using it."""
        name = os.path.basename(path)
        target = os.path.join(self.kernels, name)
        if os.path.abspath(path) != os.path.abspath(target):
            trust.make_folders(self.kernels, self.base, self.modes.folder)
            self._copy(path, target, self.modes.library)
            if os.path.exists(cache.source_path(path)):
                self._copy(cache.source_path(path), cache.source_path(target), self.modes.file)
        return (name, *cache.file_digest(target))

    @staticmethod
    def _copy(path: str, target: str, mode: int) -> None:
        with open(path, "rb") as f:
            trust.write_file(target, f.read(), mode)

    def library(self, name: str, size: Any, sha256: Any) -> tuple[str | None, str]:
        """``(path, "")`` for a kernel library that passes the trust rules and is the one its
        record describes (size and SHA-256: a truncated or bit-flipped file is never opened),
        else ``(None, why)``."""
        path = os.path.join(self.kernels, name)
        if not self.shared:
            cache.touch(path)  # before the checks: a sweep running now keeps it (evict.py)
        if not os.path.exists(path):
            return None, f"{path} is missing"
        if not trust.trusted_folder(self.kernels, self.base, self.shared):
            return None, f"{path} is not trusted"
        if not cache.intact(path, size, sha256):
            return None, (
                f"{path} is not the library its entry was built with (size or "
                "SHA-256 differ: truncated or modified since)"
            )
        return path, ""


def user_store(cache_dir: str) -> Store:
    """The user's cache (``cache_dir`` as :func:`trust.cache_root` returned it)."""
    return Store(
        os.path.join(cache_dir, cache.WARM), os.path.join(cache_dir, cache.FORMAT), cache_dir
    )


def package_store(folder: str) -> Store:
    root = os.path.join(folder, ARTIFACT_DIR)
    return Store(root, os.path.join(root, "kernels"), root, shared=True)


# -- environment ------------------------------------------------------------------------------


def cpu_flags() -> set[str]:
    """The instruction-set extensions this CPU reports (empty when unknown)."""
    flags = build.cpu_features().split("|", 1)[-1].split()
    return {f for f in flags if f.startswith(_ISA_PREFIXES)}


def python_version() -> str:
    return f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}"


def environment(version: str) -> dict[str, Any]:
    """What a built artifact requires of the process that loads it."""
    return {
        "astcompile": version,
        "numpy": np.__version__,
        "python": python_version(),
        "machine": platform.machine(),
        "cflags": list(build.CFLAGS + build.LIBS),
        "cpu_flags": sorted(cpu_flags()),
    }


def mismatch(required: dict[str, Any], version: str) -> str | None:
    """Why an artifact built for ``required`` cannot load here, or None when it can."""
    here = environment(version)
    for field in ("astcompile", "numpy", "python", "machine"):
        if required.get(field) != here[field]:
            return f"built for {field} {required.get(field)}, this is {here[field]}"
    if required.get("cflags") != here["cflags"]:
        return "built with other compiler flags"
    missing = sorted(set(required.get("cpu_flags", [])) - set(here["cpu_flags"]))
    if missing:
        return f"built for a CPU with {', '.join(missing[:6])}, which this CPU lacks"
    return None


# -- manifest ----------------------------------------------------------------------------------


def check_manifest(folder: str, version: str) -> tuple[dict | None, str]:
    """``(manifest, "")`` when ``folder/__astcache__`` can be used here, else ``(None, why)``.

    Cached per folder; ``why`` is "" when there is simply no build there.
    """
    with _lock:
        if folder in _manifests:
            return _manifests[folder]
    path = os.path.join(folder, ARTIFACT_DIR, MANIFEST)
    result: tuple[dict | None, str] = (None, "")
    if os.path.exists(path):
        result = _read_manifest(path, version)
    with _lock:
        _manifests[folder] = result
    return result


def _read_manifest(path: str, version: str) -> tuple[dict | None, str]:
    folder = os.path.dirname(path)
    try:
        trust.check_folder(folder, folder, parent=True)
        manifest = json.loads(trust.read_checked(path))
        if manifest.get("format") != MANIFEST_FORMAT:
            return None, f"{path} has format {manifest.get('format')!r}, not {MANIFEST_FORMAT}"
    except UnsafeCacheDir as exc:
        return None, str(exc)
    except (OSError, ValueError) as exc:
        return None, f"cannot read {path}: {exc}"
    why = mismatch(manifest.get("environment", {}), version)
    return (None, f"{path}: {why}") if why else (manifest, "")


def forget_manifests() -> None:
    with _lock:
        _manifests.clear()


# -- kernels -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def ffi_module_source(cdecls: str) -> str:
    """cffi's out-of-line ABI module for ``cdecls``: loads later without parsing C. Remembered
    (a function of the declarations alone): the loader writes it while the compiler runs."""
    import cffi
    from cffi.recompiler import make_py_source

    ffi = cffi.FFI()
    ffi.cdef(cdecls)
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "_astc_ffi.py")
        make_py_source(ffi, "_astc_ffi", target)
        with open(target) as f:
            return f.read()


def open_library(so_path: str, ffi_source: str) -> tuple[Any, Any] | None:
    """``(ffi, lib)`` for a built kernel library (verified by :meth:`Store.library`), or None
    when it cannot be opened or lacks a function it declares."""
    so_path = os.path.abspath(so_path)
    with _lock:
        if so_path in _libraries:
            return _libraries[so_path]
    namespace: dict[str, Any] = {}
    try:
        exec(compile(ffi_source, "<astcompile ffi>", "exec"), namespace)  # noqa: S102 - our file
        ffi = namespace["ffi"]
        loaded = ffi, resolved(ffi.dlopen(so_path), so_path)
    except (OSError, KeyError, SyntaxError, RuntimeBuildError):
        return None
    with _lock:
        return _libraries.setdefault(so_path, loaded)


def resolved(lib: Any, path: str) -> Any:
    """``lib`` once each function it declares is found in it (a missing one would otherwise
    fail at its first call, in the middle of the user's code)."""
    for name in dir(lib):
        try:
            getattr(lib, name)
        except AttributeError as exc:
            raise RuntimeBuildError(f"{path} lacks the function {name}: {exc}") from exc
    return lib
