"""The identity of this compiler build: a hash of astcompile's own source.

Persisted rewrites and region entries (warm cache, ``__astcache__/``) are only valid for the
compiler that made them. A version number alone misses every edit made between releases (a
developer's checkout, a patched install): the old cache would keep serving what the old code
generated. The package's files are hashed by content, so that the same release installed on
another machine has the same identity.

Reading and hashing the files costs a few milliseconds, a fifth of a warm process's first call,
so the digest is remembered in the user's cache beside a stamp of the files as they are on disk
(path, size, modification time and inode of each): a process whose files carry the same stamp
takes it from there, one ``stat`` per file. Any edit, reinstall or copy changes the stamp.
(An edit that keeps a file's size, made within one tick of the kernel's file clock after the
stamp was taken, would go unseen: neither people nor installers edit that fast.)
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import string
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astcompile.runtime.artifacts import Store

_SOURCE_SUFFIXES = (".py", ".h", ".c")
#: Where the digests are remembered in the user's cache (``warm-v1/buildid/<installed copy>``).
_KIND = "buildid"
_LENGTH = 16


def _package_dirs() -> list[str]:
    from astcompile import runtime

    return [os.path.dirname(os.path.abspath(__file__)), os.path.dirname(runtime.__file__)]


@functools.cache
def compiler_id() -> str:
    """A short hex digest of the compiler's version and every source file it runs."""
    from astcompile.version import __version__

    files = _source_files()
    stamp = _stamp(__version__, files)
    store, name = _store(), _install_name()
    known = (store.read(_KIND, name) or b"").split() if store is not None else []
    if len(known) == 2 and known[0] == stamp.encode() and _is_digest(known[1]):
        return known[1].decode()
    found = _content_digest(__version__, files)
    if store is not None:
        with contextlib.suppress(OSError):  # a cache we cannot write: hashed again next time
            store.write(_KIND, name, f"{stamp} {found}".encode())
    return found


def _install_name() -> str:
    """One entry per installed copy, replaced when its files change: a checkout edited all
    day leaves one file, not one per edit."""
    return hashlib.sha256("\0".join(_package_dirs()).encode()).hexdigest()[:40]


def _content_digest(version: str, files: list[tuple[str, str]]) -> str:
    digest = hashlib.sha256(version.encode())
    for relative, path in files:
        digest.update(relative.encode() + b"\0")
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:_LENGTH]


def _source_files() -> list[tuple[str, str]]:
    """(path relative to its package folder, path) of every source file, in ``os.walk``'s
    order (each folder's files by name, then its folders by name)."""
    files: list[tuple[str, str]] = []
    for root in _package_dirs():
        _add_folder(root, "", files)
    return files


def _add_folder(folder: str, relative: str, files: list[tuple[str, str]]) -> None:
    """Paths joined as text: ``os.path.relpath`` of each file was half the cost of a look-up."""
    with os.scandir(folder) as found:
        entries = sorted(found, key=lambda entry: entry.name)
    for entry in entries:
        if not entry.is_dir() and entry.name.endswith(_SOURCE_SUFFIXES):
            files.append((relative + entry.name, entry.path))
    for entry in entries:
        name = entry.name
        if entry.is_dir() and not entry.is_symlink() and name != "__pycache__" and name[0] != ".":
            _add_folder(entry.path, f"{relative}{name}{os.sep}", files)


def _stamp(version: str, files: list[tuple[str, str]]) -> str:
    """The files as they are on disk, without reading them."""
    stamp = hashlib.sha256(version.encode())
    for _, path in files:
        st = os.stat(path)
        stamp.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0".encode())
    return stamp.hexdigest()[:40]


def _is_digest(data: bytes) -> bool:
    return len(data) == _LENGTH and all(chr(b) in string.hexdigits for b in data)


def _store() -> Store | None:
    """The user's cache, where the digests are remembered (None: none usable)."""
    from astcompile import config
    from astcompile.runtime import artifacts, cache, trust

    try:
        return artifacts.user_store(trust.cache_root(config.cache_dir, cache.FOLDERS))
    except OSError:
        return None
