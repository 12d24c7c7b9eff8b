"""The on-disk cache of built kernels.

Layout: ``<cache_dir>/c-v1/<key>.so`` with ``<key>.json`` beside it (size and SHA-256 of the
``.so``) and ``<key>.c``, the source it was built from (for people: debug dumps point at it; it
is never compiled or loaded from there). The key hashes everything that changes the binary: the C source, the flags, the
compiler binary, the CPU features and this format's version. An entry is built in a private
temporary folder inside the cache, opened there (a library that does not load is never
published), and moved into place with ``os.replace``, so a reader never sees half a file. A
build holds a lock file (:func:`build_lock`), so that many processes missing the same key at
once (the workers of a Dask cluster, a ``multiprocessing.Pool``) build it once: the others wait,
then find the entry. Two writers never meet, and a reader that does not lock sees the old entry,
the new one or none, never a mix. An entry whose ``.so`` does not match its ``.json`` (truncated, bit-flipped) is
rebuilt, never opened. Folders and files follow :mod:`trust`: created private (0700; files
0600, libraries 0700), and nothing is loaded from a folder or file someone else could write.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

from . import file_locks, trust

FORMAT = "c-v1"
WARM = "warm-v1"
#: The folders of the user's cache, created (private) and checked before use.
FOLDERS = (FORMAT, f"{WARM}/frontend", f"{WARM}/regions")


def ensure_cache_dir(cache_dir: str) -> str:
    """The folder for kernel entries: ``c-v1`` of ``cache_dir``, or of the private temporary
    folder that replaces it when it cannot be created or is not trusted."""
    return os.path.join(trust.cache_root(cache_dir, FOLDERS), FORMAT)


def cache_key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in (FORMAT, *parts):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:40]


def file_digest(path: str) -> tuple[int, str]:
    """(size, SHA-256) of a file: what a kernel library's record holds."""
    with open(path, "rb") as f:
        data = f.read()
    return len(data), hashlib.sha256(data).hexdigest()


def intact(path: str, size: Any, sha256: Any) -> bool:
    """Whether the library at ``path`` is trusted and is the one its record describes."""
    return trust.matches(path, size, sha256)


def touch(path: str) -> None:
    """Mark ``path`` used now (its access time) for the least-recently-used eviction: set
    explicitly, because mounts with ``relatime`` or ``noatime`` do not on a read."""
    with contextlib.suppress(OSError):
        mtime = os.lstat(path).st_mtime_ns  # a link is refused at the load: never touch its target
        os.utime(path, ns=(time.time_ns(), mtime), follow_symlinks=False)


def lookup(entries: str, key: str) -> str | None:
    """The path of a valid entry, or None when absent, refused or corrupt."""
    so_path = os.path.join(entries, key + ".so")
    touch(so_path)  # first: an eviction running now sees it as used (see evict.py)
    data = trust.read_file(os.path.join(entries, key + ".json"))
    try:
        meta = json.loads(data) if data is not None else {}
    except ValueError:
        return None
    if not isinstance(meta, dict) or not intact(so_path, meta.get("size"), meta.get("sha256")):
        return None
    return so_path


#: Lock files are shared by keys with the same first characters: at most 256 files, and two
#: different kernels wait for each other only when their keys start alike (1 pair in 256).
LOCK_PREFIX = 2


@contextlib.contextmanager
def build_lock(entries: str, key: str) -> Iterator[bool | None]:
    """The cross-process lock of building ``key``: ``<cache>/locks/<key[:2]>.lock``
    (:mod:`file_locks`: the OS releases it when its holder dies). Kept out of ``c-v1`` so that
    it is no entry. Yields True, held (None: not taken, below).

    A forked child does not wait for a lock its parent held when it forked: the parent's
    thread may be starting the compiler just then, and CPython's ``subprocess`` waits until
    every copy of its exec-status pipe is closed, the child's copy included; it would wait for
    the child, the child for its lock. The child builds without it (:func:`store` publishes
    atomically, so two builds of one key are safe, only wasted work)."""
    path = _lock_path(entries, key)
    if path in _held_by_parent:
        yield None
        return
    with file_locks.hold(path, trust.PRIVATE.file) as held:
        _held.add(path)
        try:
            yield held
        finally:
            _held.discard(path)


def _lock_path(entries: str, key: str) -> str:
    folder = os.path.join(os.path.dirname(entries), "locks")
    os.makedirs(folder, mode=trust.PRIVATE.folder, exist_ok=True)
    return os.path.join(folder, key[:LOCK_PREFIX] + ".lock")


def parents_build(entries: str, key: str, seconds: float, every: float = 0.05) -> str | None:
    """In a forked child whose :func:`build_lock` of ``key`` yielded None: ``key``'s entry
    once the build its parent had under way publishes it, looked up every ``every`` seconds
    (never waiting on the lock: see :func:`build_lock`). None, for the child to build, once
    the lock is free without it (that build failed, or its process died) or after ``seconds``
    (a parent stalled by the child's copy of its compiler's exec-status pipe)."""
    path, deadline = _lock_path(entries, key), time.monotonic() + seconds
    while True:
        found = lookup(entries, key)
        if found is not None:
            return found
        with file_locks.hold(path, trust.PRIVATE.file, wait=False) as free:
            pass
        if free or time.monotonic() >= deadline:
            return lookup(entries, key)
        time.sleep(every)


#: Lock files this process's threads hold now, and those its parent held when it forked.
_held: set[str] = set()
_held_by_parent: frozenset[str] = frozenset()


def _after_fork_in_child() -> None:
    global _held_by_parent
    _held_by_parent = _held_by_parent | frozenset(_held)
    _held.clear()


os.register_at_fork(after_in_child=_after_fork_in_child)


def store(
    entries: str, key: str, build: Callable[[str, str], None], opened: Callable[[str], Any]
) -> tuple[str, Any]:
    """Run ``build(out_path, workdir)`` in a private temporary folder, check that
    ``opened(out_path)`` loads it (raising otherwise), then publish it atomically.

    Returns the published path and what ``opened`` returned."""
    os.makedirs(entries, mode=trust.PRIVATE.folder, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix=trust.leftover_prefix(".build"), dir=entries)
    try:
        tmp_so = os.path.join(workdir, key + ".so")
        build(tmp_so, workdir)
        os.chmod(tmp_so, trust.PRIVATE.library)
        loaded = opened(tmp_so)
        size, sha = file_digest(tmp_so)
        mtime = os.stat(tmp_so).st_mtime_ns  # our reads are no look-up (see evict.py)
        os.utime(tmp_so, ns=(mtime, mtime))
        tmp_meta = os.path.join(workdir, key + ".json")
        with open(os.open(tmp_meta, os.O_WRONLY | os.O_CREAT, trust.PRIVATE.file), "w") as f:
            json.dump({"size": size, "sha256": sha}, f)
        final_so = os.path.join(entries, key + ".so")
        os.replace(tmp_so, final_so)
        os.replace(tmp_meta, os.path.join(entries, key + ".json"))
        return final_so, loaded
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def source_path(so_path: str) -> str:
    """Where the C source of the kernel library ``so_path`` is kept (it may be missing)."""
    return os.path.splitext(so_path)[0] + ".c"


def keep_source(so_path: str, source: str) -> None:
    """Keep ``source`` beside the library built from it, unless it is there already (an entry
    cached before sources were kept gets it on its next load). Best effort: a read-only
    cache keeps working without it."""
    path = source_path(so_path)
    if not os.path.exists(path):
        with contextlib.suppress(OSError):
            trust.write_file(path, source.encode(), trust.PRIVATE.file)


def evict(entries: str, key: str) -> None:
    """Remove an entry (found corrupt: whatever stands at its paths, a folder or a FIFO too);
    missing files are fine."""
    for ext in (".json", ".so", ".c"):
        trust.remove(os.path.join(entries, key + ext))
