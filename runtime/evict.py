"""Keeping the user's cache under a size: least recently used entries go first.

An *entry* is what is removed as one: a kernel library (``c-v1/<key>.so`` with its ``.json`` and ``.c``),
a region entry file (``warm-v1/regions``) or a rewrite (``warm-v1/frontend``). Its last use is
the latest access or modification time of its files; every load sets the access time itself
(:func:`cache.touch`), since mounts with ``relatime`` or ``noatime`` would not.

Safety between processes: nothing looked up in the last :data:`GRACE_SECONDS` is removed. A
process that loads an entry touches it (its access time) before it verifies and opens it, and
the sweep stats an entry again right before removing it, so an entry another process is
loading is never removed under it (at worst its load misses and it builds again: never a
crash). Entries only written lately are not exempt (their writer has them loaded already), so
the bound holds while many processes build at once: the cache is at most one new entry per
building process over it, and over by entries being loaded at that moment.

Leftovers of killed processes (``.build-*`` folders, ``.tmp-*`` files) name their owner
(:func:`trust.leftover_prefix`): those of a dead process on this host go at the next sweep,
those whose owner we cannot see (another host) once older than :data:`LEFTOVER_GRACE_SECONDS`.

When: after the first build of a process (leftovers go even with no limit), then after any
build that takes the cache past its limit by the *ledger* (``<cache>/.size``): the total the
last sweep left, then one line per entry written since, appended by whoever wrote it. Reading
it costs one small file; a sweep scans every entry, so it runs only when the cache is over.
Never on a cache hit; one process at a time (``<cache>/.lock``, :mod:`file_locks`; a
process that finds it taken skips its sweep). ``astcompile cache info|clear`` reports and
empties the cache.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from . import cache, file_locks, forksafe, trust

#: Entries used or written more recently than this are never evicted (seconds).
GRACE_SECONDS = 2.0
#: Leftovers whose owner cannot be asked (another host's) are removed once this old.
LEFTOVER_GRACE_SECONDS = 600.0
LOCK_FILE = ".lock"
LEDGER = ".size"
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


def after_build(cache_dir: str, max_bytes: int, written: str | None = None) -> None:
    """Count a build (``written``: the new entry's file, added to the ledger); sweep on the
    first of the process, and whenever the ledger says the cache is over ``max_bytes``."""
    global _builds
    if written is not None:
        account(cache_dir, _entry_size(written))
    with _lock:
        _builds += 1
        first = _builds == 1
    if first or (max_bytes > 0 and ledger_total(cache_dir) > max_bytes):
        sweep(cache_dir, max_bytes)


def _entry_size(path: str) -> int:
    """The bytes of a kernel entry (its library and record; its source comes later)."""
    stem, size = os.path.splitext(path)[0], 0
    for ext in (".so", ".json", ".c"):
        with contextlib.suppress(OSError):
            size += os.lstat(stem + ext).st_size
    return size


def account(cache_dir: str, size: int) -> None:
    """Add an entry of ``size`` bytes to the ledger (one append: no lock, no read)."""
    path = os.path.join(cache_dir, LEDGER)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | os.O_NONBLOCK, trust.PRIVATE.file)
    except OSError:
        return
    try:
        os.write(fd, b"%d\n" % size)
    finally:
        os.close(fd)


def ledger_total(cache_dir: str) -> float:
    """The cache's size by the ledger (infinite when it cannot be read: sweep and know)."""
    data = trust.read_file(os.path.join(cache_dir, LEDGER))
    try:
        return sum(int(line) for line in data.split()) if data is not None else float("inf")
    except ValueError:
        return float("inf")


def sweep(cache_dir: str, max_bytes: int, now: float | None = None) -> int:
    """Evict least recently used entries until the cache holds at most ``max_bytes`` (0: no
    limit; entries in their grace period stay); remove stale leftovers; start the ledger again
    at what is left. Returns the bytes freed (0 when another process holds the lock)."""
    with file_locks.hold(os.path.join(cache_dir, LOCK_FILE), 0o600, wait=False) as held:
        return _sweep(cache_dir, max_bytes, time.time() if now is None else now) if held else 0


def _sweep(cache_dir: str, max_bytes: int, now: float) -> int:
    entries, leftovers = scan(cache_dir)
    freed = sum(_remove(path) for path, used in leftovers if _stale(path, used, now))
    total = sum(e.size for e in entries)
    for entry in sorted(entries, key=lambda e: e.used):
        if max_bytes <= 0 or total <= max_bytes:
            break
        if _still_idle(entry, now - GRACE_SECONDS):
            freed += sum(_remove(path) for path in entry.paths)
            total -= entry.size
    with contextlib.suppress(OSError):
        trust.write_file(os.path.join(cache_dir, LEDGER), b"%d\n" % total, trust.PRIVATE.file)
    return freed


def _stale(path: str, used: float, now: float) -> bool:
    """A leftover to remove: its owner is dead, or it is too old to be anyone's build."""
    return trust.owner_gone(os.path.basename(path)) or used < now - LEFTOVER_GRACE_SECONDS


def _still_idle(entry: Entry, before: float) -> bool:
    """Stat again right before removing: a process may have started loading it since the scan
    (it touched a file after :data:`GRACE_SECONDS` ago, and after it was written)."""
    try:
        return not any(_loading(os.lstat(path), before) for path in entry.paths)
    except OSError:
        return False


def _loading(st: os.stat_result, since: float) -> bool:
    """Whether a file was read (its access time set) since ``since`` and after it was written:
    what a look-up does before it opens an entry (:func:`cache.touch`). A file only written
    is not being loaded (writes keep their access time at or before their modification)."""
    return st.st_atime_ns > st.st_mtime_ns and st.st_atime >= since


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
    if not os.path.isdir(cache_dir):
        return 0
    with file_locks.hold(os.path.join(cache_dir, LOCK_FILE), 0o600):
        entries, leftovers = scan(cache_dir)
        paths = [p for e in entries for p in e.paths] + [p for p, _ in leftovers]
        return sum(_remove(path) for path in paths)


def reset_counter() -> None:
    """Start counting builds again (tests)."""
    global _builds
    with _lock:
        _builds = 0
