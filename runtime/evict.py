"""Keeping the user's cache under a size: least recently used entries go first.

An *entry* is what is removed as one: a kernel library (``c-v1/<key>.so`` with its ``.json`` and ``.c``),
a region entry file (``warm-v1/regions``) or a rewrite (``warm-v1/frontend``). Its last use is
the latest access or modification time of its files; every load sets the access time itself
(:func:`cache.touch`), since mounts with ``relatime`` or ``noatime`` would not.

Safety between processes: nothing used or written in the last :data:`GRACE_SECONDS` is removed.
A process that loads an entry touches it before it verifies and opens it, and the sweep stats
an entry again right before removing it, so an entry another process is loading is never
removed under it (at worst its load misses and it builds again: never a crash). Leftovers of
killed processes (``.build-*`` folders, ``.tmp-*`` files) older than the grace period go too.

When: after the first build of a process, then after every :data:`EVERY` builds, never on a
cache hit; one process at a time (``<cache>/.lock``, through ``filelock``; a process that finds
it taken skips its sweep). ``astcompile cache info|clear`` reports and empties the cache.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from . import cache, forksafe

#: Entries used or written more recently than this are never evicted (seconds).
GRACE_SECONDS = 600.0
#: A process sweeps after its first build, then after every EVERY-th.
EVERY = 16
LOCK_FILE = ".lock"
#: (folder inside the cache, what its files are called in reports)
SECTIONS = (
    (cache.FORMAT, "kernels"),
    (os.path.join(cache.WARM, "regions"), "region entries"),
    (os.path.join(cache.WARM, "frontend"), "rewrites"),
)
_lock = forksafe.module_lock(__name__)
_builds = 0


@dataclass
class Entry:
    """Files removed together, their bytes and their last use."""

    paths: list[str] = field(default_factory=list)
    size: int = 0
    used: float = 0.0
    section: str = ""

    def add(self, path: str, st: os.stat_result) -> None:
        self.paths.append(path)
        self.size += st.st_size
        self.used = max(self.used, st.st_atime, st.st_mtime)


def after_build(cache_dir: str, max_bytes: int) -> None:
    """Count a build; sweep on the first and on every EVERY-th (when there is a limit)."""
    global _builds
    with _lock:
        _builds += 1
        due = (_builds - 1) % EVERY == 0
    if due and max_bytes > 0:
        sweep(cache_dir, max_bytes)


def sweep(cache_dir: str, max_bytes: int, now: float | None = None) -> int:
    """Evict least recently used entries until the cache holds at most ``max_bytes`` (entries in
    their grace period stay); remove stale leftovers. Returns the bytes freed (0 when another
    process holds the lock)."""
    import filelock

    lock = filelock.FileLock(os.path.join(cache_dir, LOCK_FILE), mode=0o600)
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        return 0
    try:
        return _sweep(cache_dir, max_bytes, time.time() if now is None else now)
    finally:
        lock.release()


def _sweep(cache_dir: str, max_bytes: int, now: float) -> int:
    entries, leftovers = scan(cache_dir)
    freed = sum(_remove(path) for path, used in leftovers if used < now - GRACE_SECONDS)
    total = sum(e.size for e in entries)
    for entry in sorted(entries, key=lambda e: e.used):
        if total <= max_bytes:
            break
        if _still_idle(entry, now - GRACE_SECONDS):
            freed += sum(_remove(path) for path in entry.paths)
            total -= entry.size
    return freed


def _still_idle(entry: Entry, before: float) -> bool:
    """Stat again right before removing: a process may have started loading it since the scan."""
    try:
        return all(
            max(st.st_atime, st.st_mtime) < before for st in (os.stat(path) for path in entry.paths)
        )
    except OSError:
        return False


def scan(cache_dir: str) -> tuple[list[Entry], list[tuple[str, float]]]:
    """The cache's entries, and its leftovers (path, last change) of interrupted writes."""
    entries: dict[str, Entry] = {}
    leftovers = []
    for folder, section in SECTIONS:
        for path, st in _files(os.path.join(cache_dir, folder)):
            name = os.path.basename(path)
            if name.startswith((".build-", ".tmp-")):
                leftovers.append((path, st.st_mtime))
                continue
            stem = os.path.splitext(path)[0] if section == "kernels" else path
            entries.setdefault(stem, Entry(section=section)).add(path, st)
    return list(entries.values()), leftovers


def _files(folder: str) -> Iterator[tuple[str, os.stat_result]]:
    try:
        with os.scandir(folder) as found:
            for item in found:
                try:
                    yield item.path, item.stat(follow_symlinks=False)
                except OSError:
                    continue
    except OSError:
        return


def _remove(path: str) -> int:
    """Remove a file or a leftover folder; the bytes it held."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            size = sum(
                os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs
            )
            shutil.rmtree(path)
            return size
        size = os.lstat(path).st_size
        os.unlink(path)
        return size
    except OSError:
        return 0


def clear(cache_dir: str) -> int:
    """Remove every entry and leftover (under the lock, waiting for a running sweep)."""
    import filelock

    if not os.path.isdir(cache_dir):
        return 0
    with filelock.FileLock(os.path.join(cache_dir, LOCK_FILE), mode=0o600):
        entries, leftovers = scan(cache_dir)
        paths = [p for e in entries for p in e.paths] + [p for p, _ in leftovers]
        return sum(_remove(path) for path in paths)


def reset_counter() -> None:
    """Start counting builds again (tests)."""
    global _builds
    with _lock:
        _builds = 0
