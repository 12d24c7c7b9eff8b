"""trace/ as layers: values import no handler, handlers reach each other through one table.

The shape from issue 25: no imports inside functions in trace/ (each one hid an import cycle)
and no import cycle among its modules, checked on the source as tests/test_jit_layer.py does.
"""

from __future__ import annotations

import ast
import os

import pytest
from test_jit_layer import ROOT, _cycles

from astcompile.trace import handlers

TRACE = os.path.join(ROOT, "astcompile", "trace")
#: Import cycles allowed inside trace/, each with its reason.
ALLOWED_CYCLES = [
    # One value layer split at the size limit: SymArray's operators make SymScalars and a
    # SymScalar's operators meet SymArrays; neither imports a handler.
    ["astcompile.trace.sym_numbers", "astcompile.trace.symbolic"],
]


def _imports_in_functions(path: str) -> list[int]:
    with open(path) as f:
        tree = ast.parse(f.read())
    return sorted(
        node.lineno
        for fn in ast.walk(tree)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(fn)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    )


def test_no_import_inside_a_function_in_trace():
    found = {
        name: lines
        for name in sorted(os.listdir(TRACE))
        if name.endswith(".py") and (lines := _imports_in_functions(os.path.join(TRACE, name)))
    }
    assert found == {}


def test_no_import_cycle_in_trace():
    in_trace = [c for c in _cycles() if any(m.startswith("astcompile.trace") for m in c)]
    assert in_trace == ALLOWED_CYCLES


def test_every_handler_is_registered_once_the_package_is_imported():
    assert {"setitem", "getitem", "array_ufunc", "ac_for", "elementwise"} <= set(handlers._TABLE)
    with pytest.raises(AttributeError, match="no trace handler 'nowhere'"):
        handlers.nowhere  # noqa: B018
