"""A user function with loops, inlined into the region that calls it: its loops become the
caller's native loops.

A loop-free callee is inlined by running it on the trace's symbolic values. Its loops cannot
run so: a ``while i > 0`` on a symbolic int has no answer, and a ``for`` over a constant range
would be unrolled. So a callee whose statements all join regions and whose loops are all
planned native (:attr:`FunctionAnalysis.inlinable`) is rewritten as it would be compiled on its
own, its statements cut into region calls, and the trace runs that rewrite: each region call
goes to the region's body with its loops lowered to the calls the tracer follows
(frontend/lowering.py), the very body a region of the callee's own would trace. The rewrite
keeps the callee's ``def`` line, so arguments bind as Python binds them (defaults, keywords,
``TypeError``); the trace clones it and its bodies as it clones the callee (trace/reads.py),
so their globals, closure cells and defaults are read at every call.

Where the rewrite would leave anything in Python (a loop the planner refuses, a call routed
through ``__ac_call``), the callee is not inlined: the caller calls it, compiled on its own.
"""

from __future__ import annotations

import ast
import threading
import types
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astcompile.frontend.materialize import build_function
from astcompile.frontend.spec import UNBOUND, UNBOUND_NAME, def_name

if TYPE_CHECKING:
    from astcompile.frontend.analysis import FunctionAnalysis
    from astcompile.frontend.rewrite import RewriteResult

#: Names a rewrite calls that run the statements as Python: a callee whose rewrite has them
#: is not inlined (jit/dispatch.py's ``__ac_call``, a loop left in Python's ``__ac_loop``).
_PYTHON_CALLS = frozenset({"__ac_call", "__ac_loop"})


@dataclass(frozen=True)
class LoweredCallee:
    """The callee as the trace runs it: ``function`` is its rewrite (its own parameters and
    defaults, region calls for statements), whose cell named after each region holds the
    region's entry in ``bodies``, its loops lowered."""

    function: types.FunctionType
    bodies: Mapping[str, types.FunctionType]


def native_rewrite(analysis: FunctionAnalysis) -> RewriteResult | None:
    """The callee cut into regions with nothing left to Python's loops or calls, or None
    where something would be (or the analysis is a report without the rewrite's fields: the
    CLI's, which then trusts the analysis alone)."""
    if analysis.module is None or not _may_inline(analysis):
        return None
    from astcompile.frontend.rewrite import rewrite_function  # imports libcst: as analysis does

    done = rewrite_function(analysis.source, analysis)
    if done.loop_reasons or _runs_python(done.source):
        return None
    return done


def _may_inline(analysis: FunctionAnalysis) -> bool:
    return analysis.inlinable and not _branches_outside_loops(
        ast.parse(analysis.source.text).body[0]
    )


def _branches_outside_loops(node: ast.AST) -> bool:
    """Whether the function ``node`` has an ``if`` on a value outside its loops. Compiled on
    its own, such a test is on an argument the trace specialises on (``if n < 2: return``);
    inlined in a caller's loop, the argument changes from one iteration to the next and the
    test cannot be traced, so the caller's whole loop would run as Python."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _NOT_BRANCHES):
            continue  # a loop's tests are lowered with the loop; a nested def is its own
        if isinstance(child, ast.If) and not isinstance(child.test, ast.Constant):
            return True
        if _branches_outside_loops(child):
            return True
    return False


_NOT_BRANCHES = (ast.For, ast.AsyncFor, ast.While, ast.Lambda, ast.FunctionDef, ast.ClassDef)


def inlines_with_loops(analysis: FunctionAnalysis) -> bool:
    """Whether a caller may inline the analysed function's loops (see the module docstring)."""
    if analysis.module is None:  # a report (the CLI): its analysis says it
        return _may_inline(analysis)
    return native_rewrite(analysis) is not None


def _runs_python(source: str) -> bool:
    """Whether the rewritten function loops or calls user code in Python."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            return True
        if isinstance(node, ast.Name) and node.id in _PYTHON_CALLS:
            return True
    return False


_lock = threading.Lock()
_built: weakref.WeakKeyDictionary[types.FunctionType, tuple[Any, LoweredCallee]]
_built = weakref.WeakKeyDictionary()


def lowered_callee(
    function: types.FunctionType, rewrite: RewriteResult, helpers: Mapping[str, Any]
) -> LoweredCallee:
    """``function``'s rewrite and region bodies as functions beside it (its globals and
    cells), the bodies calling ``helpers`` (the tracer's ``__ac_for`` and kin); built once
    per rewrite."""
    with _lock:
        known = _built.get(function)
    if known is not None and known[0] is rewrite:
        return known[1]
    filename = rewrite.analysis.source.filename
    bodies = {
        spec.name: build_function(
            spec.body_source, spec.name, function, dict(helpers), filename, spec.structured
        )
        for spec in rewrite.regions
    }
    free = {UNBOUND_NAME: UNBOUND, **bodies}
    made = build_function(rewrite.source, def_name(function), function, free, filename)
    lowered = LoweredCallee(made, bodies)
    with _lock:
        _built[function] = (rewrite, lowered)
    return lowered
