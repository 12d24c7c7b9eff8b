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

* a file is read through one open that does not follow a symbolic link and never blocks: a
  link in place of an entry is refused like a foreign file; a FIFO, a folder or a device in
  place of one is a corrupt entry (absent: rebuilt, and replaced when written again);
* what is executed is what we checked: a library is opened only when its bytes have the size and
  SHA-256 its record holds (:mod:`cache`), Python source only from the bytes we generated
  (:func:`own_source`), never from whatever a file holds now.

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
import errno
import hashlib
import logging
import os
import platform
import shutil
import stat
import tempfile
import warnings
from dataclasses import dataclass

from . import forksafe
from .errors import UnsafeCacheDir

_log = logging.getLogger("astcompile")
_lock = forksafe.module_lock(__name__)
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


class NotAFile(OSError):
    """Something other than a regular file where an entry should be (a FIFO, a folder, a
    device): a corrupt entry, treated as absent."""


#: One open for reading an entry: not through a symbolic link, never waiting (a FIFO would
#: wait for a writer forever), not inherited by the compilers we start.
_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | os.O_CLOEXEC


def read_checked(path: str) -> bytes:
    """The bytes of ``path``, checked on the opened file (so it cannot be swapped between check
    and read). Raises :class:`UnsafeCacheDir`, :class:`NotAFile` or :class:`OSError`."""
    try:
        fd = os.open(path, _READ)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise UnsafeCacheDir(
            f"{path} is a symbolic link, and compiled code is only loaded from files the cache "
            "wrote itself; remove it if you did not make it"
        ) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotAFile(errno.EINVAL, "not a regular file", path)
        check(path, st)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        return f.read()


def read_file(path: str) -> bytes | None:
    """:func:`read_checked`, or None when absent, not a regular file, or refused (warned
    once)."""
    try:
        return read_checked(path)
    except UnsafeCacheDir as exc:
        refuse(path, str(exc))
    except OSError:
        pass
    return None


def matches(path: str, size: object, sha256: object) -> bool:
    """Whether ``path`` passes the rules and holds ``size`` bytes with SHA-256 ``sha256``
    (the record written when it was built): what a library must pass before ``dlopen``."""
    data = read_file(path)
    return data is not None and (len(data), hashlib.sha256(data).hexdigest()) == (size, sha256)


def own_source(path: str, source: str, mode: int) -> bytes:
    """``source``, kept in ``path`` for the tools that read a module's file (Triton reads a
    kernel's source through ``inspect``). The caller runs the bytes returned, never the file;
    a file holding anything else (planted, stale, a link, a FIFO) is replaced."""
    data = source.encode()
    if read_file(path) != data:
        write_file(path, data, mode)
    return data


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
    """Write ``path`` atomically (a temporary file, then ``os.replace``) with ``mode``; a
    folder in its place (a corrupt entry) is removed first."""
    fd, tmp = tempfile.mkstemp(prefix=leftover_prefix(".tmp"), dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        if os.path.isdir(path) and not os.path.islink(path):
            remove(path)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def remove(path: str) -> None:
    """Remove whatever is at ``path`` (a file, a link, a FIFO, a folder with its contents),
    never following a link; nothing there is fine."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass


# -- leftovers ---------------------------------------------------------------------------------

_HOST = hashlib.sha256(platform.node().encode()).hexdigest()[:8]


def leftover_prefix(kind: str) -> str:
    """The name start of a temporary file or build folder (``kind``: ``.tmp``, ``.build``):
    it names the process that owns it, so that a sweep can tell a killed build's leftovers
    (removed at once) from a build under way."""
    return f"{kind}-{os.getpid()}-{_HOST}-"


def owner_gone(name: str) -> bool:
    """Whether the process named in a leftover's ``name`` (:func:`leftover_prefix`) is known
    to be dead: on this host (the same process ids), and no such process. False when unsure
    (another host, a name of another form): those wait out their grace period."""
    parts = name.split("-", 3)
    if len(parts) < 4 or parts[2] != _HOST or not parts[1].isdigit():
        return False
    try:
        os.kill(int(parts[1]), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, and someone else's
        return False
    return False


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
        folder = _fallbacks.get(cache_dir)
        new = folder is None
        if new:
            folder = _fallbacks[cache_dir] = tempfile.mkdtemp(prefix="astcompile-cache-")
            atexit.register(_remove, folder, os.getpid())
        for name in folders:  # those this caller needs (an earlier one may have needed others)
            make_folders(os.path.join(folder, name), folder, PRIVATE.folder)
    if not new:
        return folder
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
