"""Which files a command looks at: the files named, and the ``*.py`` files under the folders named.

A folder walk skips what is not the user's source: hidden folders (``.git``, ``.venv``, ``.tox``),
``__pycache__``, ``__astcache__``, virtual environments (any folder holding ``pyvenv.cfg``) and
build output (``build``, ``dist``, ``*.egg-info``, ``site-packages``, ``node_modules``). A file
named explicitly is always checked, whatever its folder or suffix (pre-commit names files).
"""

from __future__ import annotations

import os

SKIPPED_DIRS = frozenset(
    {"__pycache__", "__astcache__", "build", "dist", "site-packages", "node_modules", "venv"}
)


class MissingPathError(Exception):
    """A path named on the command line does not exist (a usage error)."""


def python_files(paths: list[str]) -> list[str]:
    """The files to check, in the order named, folders walked in sorted order, no duplicates."""
    found: dict[str, None] = {}
    for path in paths:
        if os.path.isdir(path):
            for file in _walk(path):
                found.setdefault(file, None)
        elif os.path.exists(path):
            found.setdefault(os.path.normpath(path), None)
        else:
            raise MissingPathError(f"no such file or directory: {path}")
    return list(found)


def _walk(root: str) -> list[str]:
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not _skipped(folder, d))
        files += [
            os.path.normpath(os.path.join(folder, n)) for n in sorted(names) if n.endswith(".py")
        ]
    return files


def _skipped(parent: str, name: str) -> bool:
    if name.startswith(".") or name in SKIPPED_DIRS or name.endswith(".egg-info"):
        return True
    return os.path.exists(os.path.join(parent, name, "pyvenv.cfg"))
