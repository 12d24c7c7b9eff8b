"""The on-disk cache of built kernels.

Layout: ``<cache_dir>/c-v1/<key>.so`` with ``<key>.json`` beside it (size and SHA-256 of the
``.so``). The key hashes everything that changes the binary: the C source, the flags, the
compiler binary, the CPU features and this format's version. An entry is written into a private
temporary directory inside the cache and moved into place with ``os.replace``, so a reader never
sees half a file and two processes building the same key at once both succeed (the last rename
wins; both files are equivalent). An entry whose ``.so`` does not match its ``.json`` is corrupt
and is rebuilt. The cache directory is created with mode 0700 and refused if someone else owns it
or others can write it: we never ``dlopen`` a file another user could have planted.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable

from .errors import UnsafeCacheDir

FORMAT = "c-v1"


def ensure_cache_dir(cache_dir: str) -> str:
    """Create (0700) and vet the cache folder; returns the versioned sub-folder for entries."""
    entries = os.path.join(cache_dir, FORMAT)
    for path in (cache_dir, entries):
        os.makedirs(path, mode=0o700, exist_ok=True)
        _check_private(path)
    return entries


def _check_private(path: str) -> None:
    st = os.stat(path)
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise UnsafeCacheDir(
            f"cache directory {path} is owned by uid {st.st_uid}, not by you; refusing to load "
            "compiled code from it. Set ASTCOMPILE_CACHE_DIR to a folder you own."
        )
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeCacheDir(
            f"cache directory {path} is writable by group or others (mode "
            f"{stat.S_IMODE(st.st_mode):o}); refusing to load compiled code from it. "
            f"Run `chmod 700 {path}` or set ASTCOMPILE_CACHE_DIR."
        )


def cache_key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in (FORMAT, *parts):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:40]


def _file_digest(path: str) -> tuple[int, str]:
    with open(path, "rb") as f:
        data = f.read()
    return len(data), hashlib.sha256(data).hexdigest()


def lookup(entries: str, key: str) -> str | None:
    """The path of a valid entry, or None when absent or corrupt."""
    so_path = os.path.join(entries, key + ".so")
    try:
        with open(os.path.join(entries, key + ".json")) as f:
            meta = json.load(f)
        size, sha = _file_digest(so_path)
    except (OSError, ValueError):
        return None
    if meta.get("size") != size or meta.get("sha256") != sha:
        return None
    return so_path


def store(entries: str, key: str, build: Callable[[str, str], None]) -> str:
    """Run ``build(out_path, workdir)`` in a private temp dir, then publish the result atomically."""
    workdir = tempfile.mkdtemp(prefix=".build-", dir=entries)
    try:
        tmp_so = os.path.join(workdir, key + ".so")
        build(tmp_so, workdir)
        size, sha = _file_digest(tmp_so)
        tmp_meta = os.path.join(workdir, key + ".json")
        with open(tmp_meta, "w") as f:
            json.dump({"size": size, "sha256": sha}, f)
        final_so = os.path.join(entries, key + ".so")
        os.replace(tmp_so, final_so)
        os.replace(tmp_meta, os.path.join(entries, key + ".json"))
        return final_so
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def evict(entries: str, key: str) -> None:
    """Remove an entry (found corrupt); missing files are fine."""
    for ext in (".json", ".so"):
        try:
            os.unlink(os.path.join(entries, key + ext))
        except FileNotFoundError:
            pass
