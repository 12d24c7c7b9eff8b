"""A module parsed once (frontend/tree.py): each def found by its line, and positions generated
per def equal to the positions libcst gives for the whole module, in the file's coordinates."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from astcompile.frontend.tree import ModuleTree, cached, node_positions
from astcompile.frontend.walk import find

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(
    [
        *(p for p in ROOT.glob("tests/cli_samples/*/*.py") if p.name != "__init__.py"),
        *ROOT.glob("tests/programs/*.py"),
        ROOT / "astcompile" / "frontend" / "analysis.py",  # methods, continuation lines
        ROOT / "tests" / "test_source.py",  # multi-line strings
    ]
)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_def_is_found_and_located_as_in_the_whole_module(path):
    text = path.read_text()
    tree = ModuleTree(cst.parse_module(text), text)
    whole = MetadataWrapper(tree.module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert dict(node_positions(tree.module)) == dict(whole)
    defs = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)]
    located = 0
    for syntax in defs:
        fdef = tree.function_at(syntax.lineno)
        if fdef is None:  # nested in a function or under if/try: not a top-level def or method
            continue
        assert fdef.name.value == syntax.name
        positions, shift = tree.locate(fdef)
        for node in find(fdef, cst.CSTNode):
            if node in positions:
                mine, theirs = positions[node], whole[node]
                assert (mine.start.line + shift, mine.start.column) == (
                    theirs.start.line,
                    theirs.start.column,
                )
                assert (mine.end.line + shift, mine.end.column) == (
                    theirs.end.line,
                    theirs.end.column,
                )
        located += 1
    assert located


def test_cached_computes_once_per_instance_holding_no_lock():
    """Two instances' values are computed at once, by two threads: Python 3.11's
    ``functools.cached_property`` held one lock for the whole class meanwhile, which a child
    forked then (a pool started while another thread compiled) inherited, and hung on."""
    computing, other_done = threading.Event(), threading.Event()
    calls = []

    class Slow:
        def __init__(self, waits: bool) -> None:
            self.waits = waits

        @cached
        def value(self) -> bool:
            calls.append(self)
            if not self.waits:
                return True
            computing.set()
            return other_done.wait(10)  # the other instance's value, computed meanwhile

    first, second = Slow(True), Slow(False)
    results = []
    thread = threading.Thread(target=lambda: results.append(first.value))
    thread.start()
    assert computing.wait(10)
    assert second.value is True
    other_done.set()
    thread.join(10)
    assert results == [True]
    assert first.value is True and calls == [first, second]  # each computed once
