"""Every module of the package stays small enough to read in one sitting (STYLE.md: a module
past 400 lines holds two ideas; split it along the seam between them)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 400
PACKAGES = ("astcompile", "runtime")


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def _lines(path: Path) -> int:
    with path.open(encoding="utf-8") as f:
        return sum(1 for _ in f)


def test_the_packages_are_found():
    assert len(_modules()) > 50


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_is_at_most_400_lines(path):
    lines = _lines(path)
    assert lines <= LIMIT, f"{path.relative_to(ROOT)} has {lines} lines (limit {LIMIT}): split it"
