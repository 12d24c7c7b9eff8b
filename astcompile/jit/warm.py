"""Warm starts and ahead-of-time artifacts at call time.

Two things are persisted (see ``runtime/artifacts.py`` for the layout): a function's rewrite
(:mod:`astcompile.frontend.rewrite_cache`, loaded and saved by ``jit/warm_rewrite.py``) and its regions' compiled entries. A region entry is the
trace result (graph, output template, value guards), the generated wrapper and its kernel
library. On a region miss, :func:`load_entry` looks for one saved under the region's
*persistent* guard key before tracing; :func:`save_entry` writes one after every compile. A
warm process imports neither libcst nor the code generator and never runs a compiler.

Stores are searched in order: ``__astcache__/`` beside the function's module (written by
``astcompile build``, used only while its manifest matches this machine and versions), then the
user's cache. Both are bypassed while ``astcompile build`` runs, which writes into the first.
An entry is saved only when its guard key means the same thing in another process (arrays,
scalars, modules/functions/dtypes by name and code hash), not when it names another object by
identity (a global array read by the region, say).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import threading
import types
import warnings
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from astcompile import config, logs, registry
from astcompile.buildid import compiler_id
from astcompile.frontend.lookup import code_digest, fingerprint
from astcompile.jit import fp_errors, telemetry
from astcompile.jit.entries import Entry
from astcompile.runtime import artifacts, build, cache, forksafe, trust
from astcompile.runtime.errors import RuntimeBuildError
from astcompile.runtime.reads import ReadKind, evaluate

if TYPE_CHECKING:
    from astcompile.jit.protocols import CompilingRegion

FORMAT = "region-v5"  # v5: plans' "unit" steps name their copies; v4: kinds as enums; v3: ir
_lock = forksafe.module_lock(__name__)
_warned: set[str] = set()
_tried: weakref.WeakKeyDictionary[Any, set] = weakref.WeakKeyDictionary()
_aot = threading.Event()  # set while ``astcompile build`` runs
building_ahead = _aot.is_set  # then compiling has no budget (jit/budget.py)
built: list[dict[str, Any]] = []  # what the running build saved: the manifest lists it


class _NotPersistable(Exception):
    pass


# -- stores ------------------------------------------------------------------------------------


def _folder(filename: str) -> str | None:
    return None if filename.startswith("<") else os.path.dirname(os.path.abspath(filename))


def _user_store() -> artifacts.Store | None:
    """The user's cache; a private temporary folder when it is unusable (runtime/trust.py)."""
    return artifacts.user_store(trust.cache_root(config.cache_dir, cache.FOLDERS))


def stores_for(filename: str) -> list[artifacts.Store]:
    """Where to look for ``filename``'s functions' artifacts, in order (none while building)."""
    if _aot.is_set():
        return []
    stores = []
    folder = _folder(filename)
    if folder:
        from astcompile.version import __version__

        manifest, why = artifacts.check_manifest(folder, __version__)
        if manifest is not None:
            stores.append(artifacts.package_store(folder))
        elif why:
            warn_once(
                folder, f"astcompile: not using ahead-of-time artifacts: {why}; compiling instead"
            )
    user = _user_store()
    return stores + ([user] if user else [])


def target_store(filename: str) -> artifacts.Store | None:
    """Where new artifacts go: beside the module during a build, else the user's cache."""
    folder = _folder(filename)
    if _aot.is_set():
        return artifacts.package_store(folder) if folder else None
    return _user_store()


def warn_once(tag: str, message: str) -> None:
    with _lock:
        if tag in _warned:
            return
        _warned.add(tag)
    logs.root.warning("%s", message)
    warnings.warn(message, RuntimeWarning, stacklevel=4)


# -- region entries ----------------------------------------------------------------------------


def _identity(obj: Any) -> str:
    """A name for an object a guard key holds by identity, the same in every process."""
    if isinstance(obj, np.dtype):
        return repr(obj)
    if isinstance(obj, types.CodeType):  # a function's __code__: what it runs, not where it is
        return f"code:{code_digest(obj)}"
    if isinstance(
        obj, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, np.ufunc)
    ) or registry.is_compiled(obj):
        found = fingerprint(obj)
        if found is not None:
            return found
    raise _NotPersistable


def _identities(key: Any, found: set[int]) -> set[int]:
    """The ids ``key`` holds objects by (``("id", id)`` parts, as ``runtime/guards.py`` makes)."""
    if type(key) is tuple:
        if len(key) == 2 and key[0] == "id" and type(key[1]) is int:
            found.add(key[1])
        else:
            for part in key:
                _identities(part, found)
    return found


def _objects(args: tuple, wanted: set[int]) -> dict[int, Any]:
    """The objects among ``args`` (inside their tuples and lists) whose ids are ``wanted``: the
    walk stops once it has them all, so a key that holds nothing by identity costs nothing
    however long the lists given (3,000 polygons of tuples took 40 ms a look-up)."""
    found: dict[int, Any] = {}
    opened: set[int] = set()  # a list that holds itself is opened once
    stack = list(args) if wanted else []
    while stack and len(found) < len(wanted):
        value = stack.pop()
        if id(value) in wanted:
            found[id(value)] = value
        if type(value) in (tuple, list) and id(value) not in opened:
            opened.add(id(value))
            stack.extend(value)
    return found


def persistent_key(region: CompilingRegion, key: tuple, args: tuple) -> str | None:
    """``key`` with identities replaced by names (see :func:`_identity`), or None."""
    objects = _objects(args, _identities(key, set()))

    def stable(part: Any) -> Any:
        if type(part) is tuple:
            if len(part) == 2 and part[0] == "id" and type(part[1]) is int:
                return ("obj", _identity(objects.get(part[1])))
            return tuple(stable(p) for p in part)
        return part

    try:
        return repr(stable(key))
    except _NotPersistable:
        return None


def entry_name(region: CompilingRegion, pkey: str, suffix: str = ".pkl") -> str | None:
    digest = getattr(region.owner, "cache_digest", None)
    if digest is None or region.owner.backend_name not in ("auto", "c"):
        return None
    parts = (FORMAT, compiler_id(), digest, region.spec.name, build.cpu_features(), pkey)
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:40] + suffix


def load_entry(region: CompilingRegion, key: tuple, args: tuple) -> tuple[Entry, list] | None:
    """A persisted entry of ``region`` for these arguments (now added to it), or None.

    None under ``explain``, which traces to show every graph."""
    if telemetry.active() is not None:
        return None
    with _lock:
        tried = _tried.setdefault(region, set())
        if key in tried:
            return None
        tried.add(key)
    pkey = persistent_key(region, key, args)
    name = entry_name(region, pkey) if pkey else None
    if name is None:
        return None
    loaded = []
    for store in stores_for(region.owner.fn.__code__.co_filename):
        loaded += [e for r in _read(store, name) if (e := _entry(region, key, args, r, store))]
    region.add_loaded(loaded)
    for entry in loaded:  # debug output, as for an entry compiled now
        region.record_code(entry.result.graph, entry.run)
    root = region.owner.fn
    return next(((e, leaves) for e in loaded if (leaves := e.bind(args, root)) is not None), None)


def _read(store: artifacts.Store, name: str) -> list[dict[str, Any]]:
    data = store.read("regions", name)  # unpickled only from a trusted folder and file
    if data is None:
        return []
    try:
        records = pickle.loads(data)
    except Exception as exc:
        logs.root.info("unreadable region entry %s: %s", name, exc)
        return []
    return [r for r in records if isinstance(r, dict) and r.get("format") == FORMAT]


def _entry(
    region: CompilingRegion, key: tuple, args: tuple, record: dict[str, Any], store: artifacts.Store
) -> Entry | None:
    from astcompile.targets.wrapper import WrapperParts, make_wrapper

    library = None
    if record["library"]:
        if not store.root.endswith(artifacts.ARTIFACT_DIR) and _compiler_changed(record):
            return None
        so_path = _library(store, record)
        library = artifacts.open_library(so_path, record["ffi"]) if so_path else None
        if library is None:
            return None
    reads = _live_reads(record["result"].reads, args, region.owner.fn)
    if reads is None:  # a callee or module it called into is not the one it was built with
        return None
    consts = {k: _canonical(v) for k, v in record["consts"].items()}
    fast = record.get("fast")  # absent from entries persisted before the C-level call path
    parts = WrapperParts(record["py"], consts, record["steps"], record["cdecls"], fast=fast)
    parts.library = so_path if library is not None else None  # where its C source is kept
    result = dataclasses.replace(record["result"], reads=reads)
    run = fp_errors.restoring(make_wrapper(result.graph, parts, library), result, region)
    return Entry(key, result, run)


def _library(store: artifacts.Store, record: dict[str, Any]) -> str | None:
    """The verified path of an entry's kernel library; a package's that does not match its
    record is reported (the region compiles instead), a user cache's is rebuilt quietly."""
    path, why = store.library(
        record["library"], record.get("library_size"), record.get("library_sha256")
    )
    if path is None and store.shared and "SHA-256" in why:
        warn_once(
            f"corrupt:{why}",
            f"astcompile: not using ahead-of-time artifacts: {why}; "
            "compiling instead (run `astcompile build` again)",
        )
    elif path is None:
        logs.root.info("region entry not used: %s", why)
    return path


def _stable_reads(reads: tuple) -> tuple:
    """Reads with each object held by identity replaced by its fingerprint (module and name,
    code hash): what means the same in another process, else :class:`_NotPersistable`."""
    return tuple(
        dataclasses.replace(r, expected=("fingerprint", _identity(r.expected)))
        if r.kind is ReadKind.IDENTITY
        else r
        for r in reads
    )


def _live_reads(reads: tuple, args: tuple, root: Any) -> tuple | None:
    """:func:`_stable_reads` undone for this process: each fingerprint must match the object
    now at its path (an edited callee does not), which the entry then holds by identity."""
    live = []
    for read in reads:
        if read.kind is ReadKind.IDENTITY:
            try:
                obj = evaluate(read.path, args, root)
                if ("fingerprint", _identity(obj)) != read.expected:
                    return None
            except Exception:
                return None
            read = dataclasses.replace(read, expected=obj)
        elif read.kind is ReadKind.INPUT:  # its key's dtype is checked with ``is``
            read = dataclasses.replace(read, expected=_canonical_key(read.expected))
        live.append(read)
    return tuple(live)


def _compiler_changed(record: dict[str, Any]) -> bool:
    """A kernel in the user's cache is rebuilt when the compiler it was built with changed."""
    try:
        return build.compiler_id(build.find_compiler()) != record["compiler"]
    except (OSError, RuntimeBuildError):
        return False  # no compiler here: the built kernel is all we have


def _canonical_key(key: Any) -> Any:
    return tuple(_canonical_key(k) for k in key) if type(key) is tuple else _canonical(key)


def _canonical(value: Any) -> Any:
    """Unpickled dtypes are equal to NumPy's but not the same object; wrappers test with ``is``."""
    if isinstance(value, np.dtype) and np.dtype(value.type) == value:
        return np.dtype(value.type)
    return value


def save_entry(region: CompilingRegion, key: tuple, args: tuple, entry: Entry) -> None:
    """Persist a fresh C entry of ``region``; anything not persistable is skipped quietly."""
    parts = getattr(entry.run, "parts", None)
    pkey = persistent_key(region, key, args) if parts is not None else None
    name = entry_name(region, pkey) if pkey else None
    store = target_store(region.owner.fn.__code__.co_filename) if name else None
    if store is None:
        return
    try:
        record = _record(entry, parts, store)
        with _lock:
            records = [r for r in _read(store, name) if _identity_of(r) != _identity_of(record)]
            store.write("regions", name, pickle.dumps([*records, record]))
    except Exception as exc:
        logs.root.info("region entry of %s not persisted: %s", region.owner.name, exc)
        return
    if _aot.is_set():
        with _lock:
            built.append(
                {
                    "function": region.owner,
                    "region": region.spec.name,
                    "guard_key": pkey,
                    "entry": f"regions/{name}",
                    "library": record["library"] and f"kernels/{record['library']}",
                    "library_size": record["library_size"],
                    "library_sha256": record["library_sha256"],
                }
            )


def _record(entry: Entry, parts: Any, store: artifacts.Store) -> dict[str, Any]:
    library, size, sha = store.add_library(parts.library) if parts.library else (None, 0, "")
    try:
        compiler = build.compiler_id(build.find_compiler())
    except (OSError, RuntimeBuildError):
        compiler = None
    result = dataclasses.replace(entry.result, reads=_stable_reads(entry.result.reads))
    return {
        "format": FORMAT,
        "result": result,
        "py": parts.py,
        "consts": parts.consts,
        "steps": parts.steps,
        "cdecls": parts.cdecls,
        "fast": parts.fast,
        "library": library,
        "compiler": compiler,
        "library_size": size,
        "library_sha256": sha,  # checked before every load
        "ffi": artifacts.ffi_module_source(parts.cdecls) if library else None,
    }


def _identity_of(record: dict[str, Any]) -> tuple:
    result = record["result"]
    return (
        record["py"],
        record["library"],
        repr(result.value_guards),
        tuple(str(g) for g in result.graph.guards),
    )
