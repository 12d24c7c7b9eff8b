"""User docs that are generated from code must not drift from it."""

from __future__ import annotations

import re
from pathlib import Path

from astcompile.frontend.breaks import catalogue_markdown

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_graph_break_catalogue_in_docs_matches_code():
    assert catalogue_markdown() in (DOCS / "graph-breaks.md").read_text()


def test_readme_has_the_two_setup_commands():
    readme = (DOCS.parent / "README.md").read_text()
    assert "python -m pip install -e . && python -m astcompile.demo" in readme
    assert 'python -m pip install -e ".[test]" && python -m pytest -q' in readme
    ci = (DOCS.parent / ".ci" / "run").read_text()
    # CI runs exactly the README's test command (the installed wheel is tested inside it, by
    # tests/test_packaging.py), after lint and formatting with the ruff of the test extra
    test_command = 'python -m pip install -e ".[test]" && python -m pytest -q'
    assert test_command in ci.splitlines()
    assert ci.index("ruff check .") < ci.index("ruff format --check .") < ci.index(test_command)
    assert "test_packaging.py" in readme
    assert '"ruff>=' in (DOCS.parent / "pyproject.toml").read_text()


#: Where a path the docs name may start: the repository's folders and astcompile's packages.
SOURCE_FOLDERS = ("astcompile", "runtime", "kernels", "tests", "bench", "docs", "examples")
PACKAGES = tuple(p.name for p in (DOCS.parent / "astcompile").iterdir() if p.is_dir())


def _named_path_exists(ref: str) -> bool:
    """``targets/c/entry.py``, ``runtime/build.compile_shared`` (a module's name), a glob."""
    root = DOCS.parent
    ref = ref.split("::")[0].split(":")[0].rstrip("/.,")
    for base in (root, root / "astcompile"):
        if any(base.glob(ref)):
            return True
        module, _, _ = ref.rpartition(".")
        if module and any(base.glob(module + ".py")):
            return True
    return False


def test_every_source_path_the_docs_name_exists():
    """A file moved (issue 25: codegen/ and backends/ became lower/ and targets/) leaves no
    reader at a path that is gone."""
    missing = []
    for page in sorted(DOCS.glob("*.md")):
        for number, line in enumerate(page.read_text().splitlines(), 1):
            for ref in re.findall(r"`([\w./*-]+(?:::?[\w.]+)?)`", line):
                named = "/" in ref and ref.split("/")[0] in SOURCE_FOLDERS + PACKAGES
                if named and not _named_path_exists(ref):
                    missing.append(f"{page.name}:{number}: {ref}")
    assert missing == []
