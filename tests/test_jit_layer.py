"""The call-time layer (astcompile/jit/) and the pipeline: no import cycles, typed seams."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator

import numpy as np
import pytest

import astcompile
from astcompile.jit import frozen as frozen_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = (("astcompile", "astcompile"), ("runtime", "astcompile.runtime"))
#: Modules that must not sit on an import cycle (lazy imports inside functions count).
LAYER = ("astcompile.api", "astcompile.pipeline", "astcompile.stages", "astcompile.jit")


def _modules() -> dict[str, str]:
    found = {}
    for folder, package in PACKAGES:
        base = os.path.join(ROOT, folder)
        for here, _, files in os.walk(base):
            for name in files:
                if not name.endswith(".py"):
                    continue
                rel = os.path.relpath(os.path.join(here, name), base)[:-3].replace(os.sep, ".")
                module = package if rel == "__init__" else f"{package}.{rel}"
                found[module.removesuffix(".__init__")] = os.path.join(here, name)
    return found


def _imported(module: str, path: str, known: dict[str, str]) -> Iterator[str]:
    """Every module ``module`` imports, at module level or inside a function; imports under
    ``if TYPE_CHECKING:`` are for annotations only and run never."""
    with open(path) as f:
        tree = ast.parse(f.read())
    typing_only = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for n in ast.walk(node))
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield sub if sub in known else base


def _cycles() -> list[list[str]]:
    """The strongly connected components of the import graph with more than one module."""
    known = _modules()
    graph = {
        m: {t for t in _imported(m, p, known) if t in known and t != m} for m, p in known.items()
    }
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        order[v] = low[v] = len(order)
        stack.append(v)
        for w in graph[v]:
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in order:
            visit(v)
    return found


def test_no_import_cycle_through_the_call_time_layer():
    on_cycles = [c for c in _cycles() if any(m.startswith(LAYER) for m in c)]
    assert on_cycles == []


def test_the_ir_imports_nothing_of_the_tracer():
    """ir/ is what every stage after the trace reads; the tracer builds it, not the reverse
    (an IR condition the tracer must report is an IR exception it turns into a break)."""
    known = _modules()
    reaching = {
        (m, t)
        for m, p in known.items()
        if m.startswith("astcompile.ir.")
        for t in _imported(m, p, known)
        if t.startswith("astcompile.trace")
    }
    assert not reaching


def test_the_graph_passes_run_only_as_stages_of_the_one_list():
    """A second pass runner (the test-only ``run_passes`` was one) skips what the stage runner
    does between stages (verifying the IR, timing, dumps) and lets tests check a pipeline that
    no compile runs; tests stop the one list early instead (``run_target_stages``)."""
    known = _modules()
    users = {m for m, p in known.items() if "astcompile.passes.pass_list" in _imported(m, p, known)}
    assert users == {"astcompile.pipeline"}


def test_the_work_the_stages_share_is_typed():
    """Each field of the stages' work says what it holds: no field is ``Any`` (a bag of state
    whose contents only the code that fills it knows)."""
    from astcompile.stages import FunctionWork, RegionWork

    loose = [
        f"{work.__name__}.{name}"
        for work in (FunctionWork, RegionWork)
        for name, note in work.__annotations__.items()
        if "Any" in str(note).split(" | ")
    ]
    assert loose == []


def test_the_cycle_check_sees_lazy_imports(tmp_path, monkeypatch):
    known = {"astcompile.a": str(tmp_path / "a.py"), "astcompile.b": str(tmp_path / "b.py")}
    (tmp_path / "a.py").write_text("def f():\n    from astcompile import b\n")
    (tmp_path / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import astcompile.a\n"
    )
    assert list(_imported("astcompile.a", known["astcompile.a"], known)) == ["astcompile.b"]
    assert list(_imported("astcompile.b", known["astcompile.b"], known)) == ["typing"]


def _jit_trees() -> Iterator[tuple[str, ast.Module]]:
    folder = os.path.join(ROOT, "astcompile", "jit")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name)) as f:
                yield name, ast.parse(f.read())


def test_owner_spec_and_region_parameters_are_typed():
    loose = [
        f"{name}:{arg.lineno} {arg.arg}"
        for name, tree in _jit_trees()
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for arg in node.args.args
        if arg.arg in ("owner", "spec", "region")
        and (arg.annotation is None or ast.unparse(arg.annotation) == "Any")
    ]
    assert loose == []


def test_no_module_reaches_into_a_region_private_attribute():
    private = [
        f"{name}:{node.lineno} {ast.unparse(node)}"
        for name, tree in _jit_trees()
        if name != "regions.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and ast.unparse(node.value) == "region"
    ]
    assert private == []


def test_frozen_state_lives_in_one_module():
    writers = set()
    for module, path in _modules().items():
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            stored = isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
            if stored and node.attr == "frozen":
                writers.add(module)
    assert writers == {"astcompile.jit.frozen"}
    assert astcompile.api.frozen is frozen_module.frozen


def test_frozen_strict_raises_and_the_mode_is_restored():
    @astcompile.compile(backend="eager")
    def neg(x):
        return -x

    with pytest.raises(astcompile.Unsupported, match="frozen mode"):
        astcompile.run(neg, strict=True)(np.ones(2))
    assert frozen_module.frozen_mode() is None
    np.testing.assert_array_equal(neg(np.ones(2)), -np.ones(2))


def test_callees_compile_with_the_callers_backend():
    def helper(x):
        return x * 2

    def caller(x):
        y = helper(x)
        print(end="")  # a graph break: helper is called from eager code
        return y

    compiled = astcompile.compile(caller, backend="eager")
    np.testing.assert_array_equal(compiled(np.ones(2)), np.full(2, 2.0))
    from astcompile.jit import dispatch

    callee = dispatch.compiled_callee(helper, compiled)
    assert callee.backend_name == "eager" and callee.fn is helper
    assert dispatch.compiled_callee(helper, compiled) is callee
