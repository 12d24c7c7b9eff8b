"""User docs that are generated from code must not drift from it."""

from __future__ import annotations

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
