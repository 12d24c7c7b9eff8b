"""The ``[tool.astcompile]`` table of the checked project's ``pyproject.toml``.

The file is found by walking up from the checked paths (from the folder that holds them all):
the first ``pyproject.toml`` with a ``[tool.astcompile]`` table wins; the walk stops at the root
of a git repository. Keys (all optional)::

    [tool.astcompile]
    max-breaks = 10              # graph breaks allowed in all checked files together
    max-breaks-per-file = 3      # graph breaks allowed in any one file
    select = ["GB"]              # report only codes starting with one of these
    ignore = ["GB012"]           # never report codes starting with one of these

Command-line options override the file. ``[tool.astcompile.signatures]`` belongs to
``astcompile build`` (``aot.pyproject_signatures``): the check passes over it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

try:
    import tomllib
except ImportError:  # Python 3.10
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ImportError:
        tomllib = None  # type: ignore[assignment]

_KEYS = {
    "max-breaks": "max_breaks",
    "max-breaks-per-file": "max_breaks_per_file",
    "select": "select",
    "ignore": "ignore",
}
#: Keys of ``[tool.astcompile]`` that other commands read (not unknown, not the check's).
_OTHER_COMMANDS = {"signatures": "astcompile build"}


class ConfigError(Exception):
    """The configuration cannot be read or holds a value of the wrong type (a usage error)."""


@dataclass(frozen=True)
class Config:
    """Budget and code selection; ``source`` is the pyproject.toml they came from, if any."""

    max_breaks: int | None = None
    max_breaks_per_file: int | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    source: str | None = None


def find_pyproject(paths: list[str]) -> str | None:
    """The nearest ``pyproject.toml`` above ``paths`` that has a ``[tool.astcompile]`` table."""
    folder = _common_folder(paths)
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate) and "astcompile" in _read(candidate).get("tool", {}):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder or os.path.exists(os.path.join(folder, ".git")):
            return None
        folder = parent


def load_config(pyproject: str | None) -> Config:
    """The ``[tool.astcompile]`` table of ``pyproject`` (defaults when None)."""
    if pyproject is None:
        return Config()
    table = _read(pyproject).get("tool", {}).get("astcompile", {})
    values: dict[str, object] = {"source": pyproject}
    for key, value in table.items():
        if key in _OTHER_COMMANDS:
            continue
        if key not in _KEYS:
            raise ConfigError(f"{pyproject}: unknown key {key!r} in [tool.astcompile]")
        values[_KEYS[key]] = _checked(pyproject, key, value)
    return Config(**values)


def _checked(pyproject: str, key: str, value: object) -> object:
    if key.startswith("max-breaks"):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{pyproject}: {key} must be a non-negative integer, not {value!r}")
        return value
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{pyproject}: {key} must be a list of code prefixes, not {value!r}")
    return tuple(value)


def _read(pyproject: str) -> dict:
    if tomllib is None:
        raise ConfigError(f"reading {pyproject} needs Python >= 3.11 or the tomli package")
    try:
        with open(pyproject, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {pyproject}: {exc}") from None


def _common_folder(paths: list[str]) -> str:
    folders = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in paths]
    return os.path.commonpath(folders) if folders else os.getcwd()
