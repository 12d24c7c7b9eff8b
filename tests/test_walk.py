"""The read-only walk (frontend/walk.py) meets the same nodes in the same order as libcst's own
``visit``, on real source files, and honours ``visit_`` returning False and ``leave_``."""

from __future__ import annotations

import abc
import dataclasses
import typing
from pathlib import Path

import libcst as cst
import pytest

from astcompile.frontend import walk

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(
    p
    for p in [*ROOT.glob("astcompile/frontend/*.py"), *ROOT.glob("tests/test_*.py")]
    if p.name != "__init__.py"
)


class _Everything(walk.Visitor):
    """Records every node the walk enters."""

    def __init__(self) -> None:
        self.seen: list[cst.CSTNode] = []

    def _record(self, node: cst.CSTNode) -> None:
        self.seen.append(node)

    def __getattr__(self, name: str):
        if name.startswith("visit_"):
            return self._record
        raise AttributeError(name)


class _LibcstEverything(cst.CSTVisitor):
    def __init__(self) -> None:
        self.seen: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, walk._SKIPPED):
            return False
        self.seen.append(node)
        return True


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_walk_meets_what_libcst_visit_meets_in_the_same_order(path):
    module = cst.parse_module(path.read_text())
    ours, theirs = _Everything(), _LibcstEverything()
    ours.walk(module)
    module.visit(theirs)
    assert len(ours.seen) == len(theirs.seen) > 100
    assert all(a is b for a, b in zip(ours.seen, theirs.seen))


class _Calls(walk.Visitor):
    def __init__(self) -> None:
        self.events: list[str] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.events.append(f"visit {cst.Module([]).code_for_node(node.func)}")

    def leave_Call(self, node: cst.Call) -> None:
        self.events.append(f"leave {cst.Module([]).code_for_node(node.func)}")

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False  # its body is not entered


def test_visit_false_skips_children_and_leave_follows_the_children():
    calls = _Calls()
    calls.walk(cst.parse_module("f(g(x), lambda: h())\nk()\n"))
    assert calls.events == ["visit f", "visit g", "leave g", "leave f", "visit k", "leave k"]


def test_find_returns_nodes_of_a_type_in_source_order():
    module = cst.parse_module("def f():\n    if a:\n        return 1\n    return b(2)\n")
    found = walk.find(module, (cst.Return, cst.Integer))
    assert [type(n).__name__ for n in found] == ["Return", "Integer", "Return", "Integer"]


NODE_TYPES = sorted(
    (
        kind
        for kind in vars(cst).values()
        if isinstance(kind, type)
        and issubclass(kind, cst.CSTNode)
        and dataclasses.is_dataclass(kind)
    ),
    key=lambda kind: kind.__name__,
)


def _resolved_fields(kind: type) -> tuple[str, ...]:
    """The fields that may hold code as the resolved annotations and ``issubclass`` say."""

    def may_hold_code(annotation: object) -> bool:
        if isinstance(annotation, type):
            return issubclass(annotation, cst.CSTNode) and not issubclass(annotation, walk._SKIPPED)
        return any(may_hold_code(a) for a in typing.get_args(annotation))

    hints = typing.get_type_hints(kind, vars(cst))
    return tuple(f.name for f in dataclasses.fields(kind) if may_hold_code(hints[f.name]))


def test_every_node_type_is_walked_through_the_fields_its_annotations_name():
    """Forward references (``Optional["If"]``), literals and skipped tokens alike, for node
    types the corpus above may not hold (``match``, implicit concatenation)."""
    assert len(NODE_TYPES) > 150
    assert {kind: walk._fields(kind) for kind in NODE_TYPES} == {
        kind: _resolved_fields(kind) for kind in NODE_TYPES
    }


def test_a_process_learns_the_node_types_without_abc_subclass_checks(monkeypatch):
    """libcst's node bases are ABCs: an ``issubclass`` that fails asks every registered
    subclass, which made learning the node types most of a process's first analysis."""
    monkeypatch.setattr(walk, "_field_names", {})
    monkeypatch.setattr(walk, "_kinds", {list: walk._MANY, tuple: walk._MANY})
    checks = []
    original = abc.ABCMeta.__subclasscheck__

    def counted(cls, sub):
        checks.append((cls, sub))
        return original(cls, sub)

    monkeypatch.setattr(abc.ABCMeta, "__subclasscheck__", counted)
    for kind in NODE_TYPES:
        walk._fields(kind)
        walk._kind(kind)
    monkeypatch.undo()
    assert checks == []
