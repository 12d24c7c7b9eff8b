"""Cross-process locks on lock files: ``flock`` where the OS has it, else ``filelock``.

The cache's builds (:func:`cache.build_lock`) and sweeps (:func:`evict.sweep`) are guarded by
lock files. On POSIX the lock is ``fcntl.flock`` on the file, as ``filelock`` takes it there
(the two see each other's locks), held through one descriptor: the OS releases it when that
descriptor closes or its holder dies. We take it ourselves because importing ``filelock``
costs 7 ms of CPU, a process's first build pays it, and that is 3% of a 3-line function's cold
first call. Elsewhere (Windows) ``filelock`` does it.

Lock files are opened without following a symlink, created private. A forked child closes its
copies of the descriptors its parent held (a flock lives while any copy is open: the child
would hold its parent's lock until it exited).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

#: Descriptors of the locks this process holds or waits for now (closed in a forked child: a
#: copy of one waited for would hold the lock once the wait ends, past its release here).
_held: set[int] = set()


@contextlib.contextmanager
def hold(path: str, mode: int, wait: bool = True) -> Iterator[bool]:
    """Hold the lock file ``path`` (created with ``mode``) during the ``with`` block. Yields
    True once held; with ``wait`` false, False at once (not held) when another holds it."""
    if fcntl is None:  # pragma: no cover - not POSIX
        with _filelock(path, mode, wait) as held:
            yield held
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), mode)
    _held.add(fd)  # from now on: a child forked while this thread waits must not keep a copy
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        _close(fd)
        yield False
        return
    except BaseException:  # an interrupt while waiting
        _close(fd)
        raise
    try:
        yield True
    finally:
        _close(fd)  # releases the lock


def _close(fd: int) -> None:
    if fd in _held:  # else a forked child, which closed its copy at the fork
        _held.discard(fd)
        os.close(fd)


@contextlib.contextmanager
def _filelock(path: str, mode: int, wait: bool) -> Iterator[bool]:  # pragma: no cover
    import filelock

    lock = filelock.FileLock(path, mode=mode)
    try:
        lock.acquire(timeout=-1 if wait else 0)
    except filelock.Timeout:
        yield False
        return
    try:
        yield True
    finally:
        lock.release()


def _after_fork_in_child() -> None:
    for fd in _held:
        with contextlib.suppress(OSError):
            os.close(fd)
    _held.clear()


os.register_at_fork(after_in_child=_after_fork_in_child)
