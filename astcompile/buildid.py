"""The identity of this compiler build: a hash of astcompile's own source.

Persisted rewrites and region entries (warm cache, ``__astcache__/``) are only valid for the
compiler that made them. A version number alone misses every edit made between releases (a
developer's checkout, a patched install): the old cache would keep serving what the old code
generated. Hashing the package's files, by content so that the same release installed on
another machine has the same identity, costs a few milliseconds once per process.
"""

from __future__ import annotations

import functools
import hashlib
import os

_SOURCE_SUFFIXES = (".py", ".h", ".c")


def _package_dirs() -> list[str]:
    from astcompile import runtime

    return [os.path.dirname(os.path.abspath(__file__)), os.path.dirname(runtime.__file__)]


@functools.cache
def compiler_id() -> str:
    """A short hex digest of the compiler's version and every source file it runs."""
    from astcompile.version import __version__

    digest = hashlib.sha256(__version__.encode())
    for root in _package_dirs():
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            for name in sorted(files):
                if not name.endswith(_SOURCE_SUFFIXES):
                    continue
                path = os.path.join(folder, name)
                digest.update(os.path.relpath(path, root).encode() + b"\0")
                with open(path, "rb") as f:
                    digest.update(f.read())
    return digest.hexdigest()[:16]
