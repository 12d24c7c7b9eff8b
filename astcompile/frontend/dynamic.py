"""Which locals hold values computed from array data, so tests over them are data-dependent.

The tracer runs a region with symbolic arrays and concrete Python scalars. ``s = x.sum()``
makes ``s`` symbolic, so a later ``if s > 0:`` has no truth value while tracing and the
runtime breaks there, exactly as it would on ``if x.sum() > 0:``. A test over a local is
therefore judged like the expressions assigned to it (:func:`~exprs.is_static`)::

    n = x.shape[0] * 2      # static: only shapes and constants
    k = n + 1               # static: built from a static local
    s = x.sum()             # dynamic: reads array values
    t = s > 0               # dynamic: built from a dynamic local
    for v in x: ...         # dynamic: each v is an element, like x[i]
    for i in range(n): ...  # static: range over static bounds

A local is dynamic when any of its bindings is, anywhere in the function (a local reused
for both kinds is judged dynamic everywhere). Parameters are static until rebound: whether
``x`` is an array or a Python number is only known at run time, and a test over a parameter
is judged as before.
"""

from __future__ import annotations

import libcst as cst

from astcompile.frontend.exprs import dotted_name, is_static
from astcompile.frontend.local_names import target_sets
from astcompile.frontend.walk import Visitor

#: A binding's value: an expression to judge, or a verdict already known.
STATIC, DYNAMIC = "static", "dynamic"

Binding = tuple[frozenset[str], cst.BaseExpression | str]


def dynamic_locals(fdef: cst.FunctionDef) -> frozenset[str]:
    """The locals of ``fdef`` that hold values computed from array data (a fixpoint)."""
    bindings = _Bindings()
    bindings.walk(fdef.body)
    dynamic: set[str] = set()
    changed = True
    while changed:
        changed = False
        for names, value in bindings.found:
            if names <= dynamic:
                continue
            if value == DYNAMIC or (value != STATIC and not is_static(value, dynamic)):
                dynamic |= names
                changed = True
    return frozenset(dynamic)


def _names(target: cst.BaseExpression) -> frozenset[str]:
    return frozenset(target_sets(target).writes)


class _Bindings(Visitor):
    """Every binding of a function-scope name with the value it binds, nested scopes skipped."""

    def __init__(self) -> None:
        self.found: list[Binding] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.found.append((_names(target.target), node.value))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.found.append((_names(node.target), node.value))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.found.append((_names(node.target), node.value))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.found.append((_names(node.target), node.value))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.found.append((_names(node.asname.name), node.item))

    def visit_For(self, node: cst.For) -> None:
        self.found += _loop_bindings(node.target, node.iter)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _loop_bindings(target: cst.BaseExpression, iterable: cst.BaseExpression) -> list[Binding]:
    """``range`` over static bounds and literal tuples of constants give static values; an
    ``enumerate`` index is static; any other element is read from data, like ``x[i]``."""
    names = _names(target)
    call = dotted_name(iterable.func) if isinstance(iterable, cst.Call) else None
    if call == "range":
        return [(names, arg.value) for arg in iterable.args]
    if isinstance(iterable, (cst.Tuple, cst.List)):
        return [(names, element.value) for element in iterable.elements]
    if call == "enumerate" and isinstance(target, cst.Tuple) and len(target.elements) == 2:
        index, element = (e.value for e in target.elements)
        return [(_names(index), STATIC), (_names(element), DYNAMIC)]
    return [(names, DYNAMIC)]
