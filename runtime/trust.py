"""Which folders and files compiled code is loaded from, and the modes the caches create.

A kernel library is machine code we ``dlopen``; a region entry is a pickle we unpickle; a cached
rewrite is Python source we execute. All of it runs as the user, so each must come from a file
nobody else could have written or swapped. The rules, applied on every load path (the user's
cache, ``c-v1/`` and ``warm-v1/``, and a package's ``__astcache__/``):

* a folder or file is trusted when it is owned by the user or by root and neither its group nor
  others may write it;
* every folder from the store's base down to the file is checked: a private ``c-v1/`` inside a
  world-writable cache is no safer than the cache (anyone could rename it and plant their own);
* ``__astcache__/`` sits in a package folder we did not create: that folder must not be
  writable by group or others either (whoever may rename ``__astcache__`` may swap in another
  between our check and our load).

A refused folder or file is not used (one warning per path: why, and how to fix it) and the
code compiles as if it were absent. A cache folder that cannot be created or is refused is
replaced, for this process, by a private temporary folder (one warning naming
``ASTCOMPILE_CACHE_DIR``), so compiling still works and nothing touches the refused folder.

What the caches write follows the rules: the user's cache is private (folders 0700, files 0600,
libraries 0700); ``__astcache__/`` is shipped with a package and read by all of its users, so
it is readable by all and writable by its owner only (0755, 0644, 0755).

Part of the runtime: must not import the compiler.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import stat
import tempfile
import threading
import warnings
from dataclasses import dataclass

from .errors import UnsafeCacheDir

_log = logging.getLogger("astcompile")
_lock = threading.Lock()
_warned: set[str] = set()
_fallbacks: dict[str, str] = {}  # refused cache folder -> this process's temporary one


@dataclass(frozen=True)
class Modes:
    """Permission bits for what a store creates."""

    folder: int
    file: int
    library: int


PRIVATE = Modes(0o700, 0o600, 0o700)
SHARED = Modes(0o755, 0o644, 0o755)


# -- the rules ---------------------------------------------------------------------------------


def check(path: str, st: os.stat_result) -> None:
    """Raise :class:`UnsafeCacheDir` (why, and the fix) unless ``st`` (of ``path``) is trusted."""
    uid = os.getuid() if hasattr(os, "getuid") else st.st_uid  # no owners to compare: Windows
    if st.st_uid not in (uid, 0):
        raise UnsafeCacheDir(
            f"{path} is owned by uid {st.st_uid}, neither you (uid {uid}) nor root, so someone "
            "else may have put code there; remove it if you did not make it"
        )
    check_writers(path, st)


def check_writers(path: str, st: os.stat_result) -> None:
    """The part of the rule for a folder we did not create: nobody else may write it."""
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        who = "group and others" if st.st_mode & stat.S_IWOTH else "its group"
        raise UnsafeCacheDir(
            f"{path} is writable by {who} (mode {stat.S_IMODE(st.st_mode):o}), so someone else "
            f"may have put code there; run `chmod go-w {path}`"
        )


def check_folder(folder: str, base: str, parent: bool = False) -> None:
    """Check ``base`` and every folder below it down to ``folder``; with ``parent``, also that
    nobody else may write the folder holding ``base`` (the ``__astcache__`` rule).

    Raises :class:`UnsafeCacheDir`, or :class:`FileNotFoundError` when a level is missing."""
    if parent:
        above = os.path.dirname(os.path.abspath(base))
        check_writers(above, os.stat(above))
    for level in _levels(folder, base):
        check(level, os.stat(level))


def _levels(folder: str, base: str) -> list[str]:
    """``base``, then each folder below it down to ``folder`` (which must be inside it)."""
    base, folder = os.path.abspath(base), os.path.abspath(folder)
    rel = os.path.relpath(folder, base)
    if rel.startswith(os.pardir):
        raise ValueError(f"{folder} is not inside {base}")
    levels = [base]
    for part in [] if rel == os.curdir else rel.split(os.sep):
        levels.append(os.path.join(levels[-1], part))
    return levels


# -- checks that warn --------------------------------------------------------------------------


def trusted_folder(folder: str, base: str, parent: bool = False) -> bool:
    """Whether code may be loaded from ``folder`` (see :func:`check_folder`); a refusal is
    warned about once per folder, a missing folder is quietly False."""
    try:
        check_folder(folder, base, parent)
    except FileNotFoundError:
        return False
    except UnsafeCacheDir as exc:
        refuse(folder, str(exc))
        return False
    return True


def read_checked(path: str) -> bytes:
    """The bytes of ``path``, checked on the opened file (so it cannot be swapped between check
    and read). Raises :class:`UnsafeCacheDir` or :class:`OSError`."""
    with open(path, "rb") as f:
        check(path, os.fstat(f.fileno()))
        return f.read()


def read_file(path: str) -> bytes | None:
    """:func:`read_checked`, or None when absent or refused (warned once)."""
    try:
        return read_checked(path)
    except UnsafeCacheDir as exc:
        refuse(path, str(exc))
    except OSError:
        pass
    return None


def trusted_file(path: str) -> bool:
    """Whether ``path`` exists and is trusted (for files opened by path, like ``dlopen``)."""
    try:
        check(path, os.stat(path))
    except OSError:
        return False
    except UnsafeCacheDir as exc:
        refuse(path, str(exc))
        return False
    return True


def refuse(path: str, why: str) -> None:
    """Say once per path that compiled code there is not used, and why."""
    with _lock:
        if path in _warned:
            return
        _warned.add(path)
    message = f"astcompile: not loading compiled code from {path}: {why}"
    _log.warning("%s", message)
    warnings.warn(message, RuntimeWarning, stacklevel=4)


# -- creating ----------------------------------------------------------------------------------


def make_folders(folder: str, base: str, mode: int) -> None:
    """Create ``folder`` and the missing folders above it; those from ``base`` down get ``mode``
    whatever the umask (one that takes bits away from a shared 0755 store would hide it)."""
    os.makedirs(os.path.dirname(os.path.abspath(base)), exist_ok=True)
    for level in _levels(folder, base):
        try:
            os.mkdir(level, mode)
        except FileExistsError:
            continue
        os.chmod(level, mode)


def write_file(path: str, data: bytes, mode: int) -> None:
    """Write ``path`` atomically (a temporary file, then ``os.replace``) with ``mode``."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


# -- the user's cache folder -------------------------------------------------------------------


def cache_root(cache_dir: str, folders: tuple[str, ...] = ()) -> str:
    """``cache_dir``, created with ``folders`` inside, when code may be loaded from it; else a
    private temporary folder for this process (warned about once)."""
    try:
        for level in _levels_below(cache_dir, folders):  # parents first: nothing made in a bad one
            _ensure(level)
    except (OSError, UnsafeCacheDir) as exc:
        why = str(exc) if isinstance(exc, UnsafeCacheDir) else f"it cannot be created: {exc}"
        return _fallback(cache_dir, why, folders)
    return cache_dir


def _levels_below(base: str, folders: tuple[str, ...]) -> list[str]:
    """``base`` and every folder from it down to each of ``folders``, parents first."""
    levels = {base}
    for name in folders:
        parts = name.split("/")
        levels.update(os.path.join(base, *parts[:i]) for i in range(1, len(parts) + 1))
    return sorted(levels, key=len)


def _ensure(level: str) -> None:
    """Check a folder, creating it first when missing (this runs at every look-up in the cache:
    on the common path it is one stat)."""
    try:
        st = os.stat(level)
    except FileNotFoundError:
        make_folders(level, level, PRIVATE.folder)
        st = os.stat(level)
    check(level, st)


def _fallback(cache_dir: str, why: str, folders: tuple[str, ...]) -> str:
    with _lock:
        if cache_dir in _fallbacks:
            return _fallbacks[cache_dir]
        folder = _fallbacks[cache_dir] = tempfile.mkdtemp(prefix="astcompile-cache-")
        for name in folders:
            make_folders(os.path.join(folder, name), folder, PRIVATE.folder)
    atexit.register(_remove, folder, os.getpid())
    message = (
        f"astcompile: not using the cache folder {cache_dir}: {why}. Compiled kernels go "
        f"to {folder} for this process only. Set ASTCOMPILE_CACHE_DIR to a folder you own "
        "that others cannot write."
    )
    _log.warning("%s", message)
    warnings.warn(message, RuntimeWarning, stacklevel=4)
    return folder


def _remove(folder: str, pid: int) -> None:
    if os.getpid() == pid:  # not in a forked child: the parent is still using it
        shutil.rmtree(folder, ignore_errors=True)


def forget() -> None:
    """Warn again, and look at refused cache folders again (tests)."""
    with _lock:
        _warned.clear()
        _fallbacks.clear()
