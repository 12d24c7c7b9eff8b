"""Modules written into a test's folder and imported from there, then edited on disk, as a user
edits a file that a running process (a notebook, a server) imported earlier."""

from __future__ import annotations

import importlib.util
import os
import sys
import textwrap
import types
from pathlib import Path


def load_module(folder: Path, name: str, text: str) -> types.ModuleType:
    """``text`` (dedented) written to ``folder/name.py`` and imported as module ``name``."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    return import_file(path, name)


def import_file(path: Path | str, name: str) -> types.ModuleType:
    """The file at ``path`` imported (again) as module ``name``, as ``%autoreload`` runs an
    edited file before it swaps the new code into the old functions."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def edit_module(module: types.ModuleType, text: str) -> None:
    """Write new text over ``module``'s file without importing it again; its modification
    time moves on, so ``linecache`` (which ``inspect`` reads through) sees the new text."""
    path = module.__file__
    before = os.stat(path).st_mtime_ns
    Path(path).write_text(textwrap.dedent(text))
    os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))
