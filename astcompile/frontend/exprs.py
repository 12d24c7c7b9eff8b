"""Facts about expressions that analysis needs: dotted names, calls, and static tests.

A test is *static* when its truth value depends only on shapes, dtypes, names and constants,
so the tracer can evaluate it once per guard set; anything else (``b.sum() < 0``) depends on
array values and must run in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from astcompile.frontend.tables import STATIC_ATTRIBUTES, STATIC_CALLS
from astcompile.frontend.walk import Visitor, walk


def dotted_name(expr: cst.BaseExpression) -> str | None:
    """``np.linalg.svd`` for an attribute chain on a name, ``f`` for a name, else None."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted_name(expr.value)
        return f"{base}.{expr.attr.value}" if base else None
    return None


def is_static(expr: cst.CSTNode) -> bool:
    """True when ``expr`` is built only from things whose value tracing fixes (see module doc)."""
    rule = _STATIC_RULES.get(type(expr))
    return rule(expr) if rule else False


def _all_static(nodes) -> bool:
    return all(is_static(n) for n in nodes)


def _static_attribute(node: cst.Attribute) -> bool:
    return node.attr.value in STATIC_ATTRIBUTES or dotted_name(node) is not None


def _static_subscript(node: cst.Subscript) -> bool:
    """``x.shape[0]`` is static; ``x[0]`` reads array data."""
    base = node.value
    if not (isinstance(base, cst.Attribute) and base.attr.value in STATIC_ATTRIBUTES):
        return False
    return all(isinstance(e.slice, cst.Index) and is_static(e.slice.value) for e in node.slice)


def _static_call(node: cst.Call) -> bool:
    return dotted_name(node.func) in STATIC_CALLS and _all_static(a.value for a in node.args)


_STATIC_RULES: dict[type, Callable[..., bool]] = {
    cst.Name: lambda n: True,
    cst.Integer: lambda n: True,
    cst.Float: lambda n: True,
    cst.Imaginary: lambda n: True,
    cst.SimpleString: lambda n: True,
    cst.ConcatenatedString: lambda n: True,
    cst.Ellipsis: lambda n: True,
    cst.Attribute: _static_attribute,
    cst.Subscript: _static_subscript,
    cst.Call: _static_call,
    cst.UnaryOperation: lambda n: is_static(n.expression),
    cst.BinaryOperation: lambda n: is_static(n.left) and is_static(n.right),
    cst.BooleanOperation: lambda n: is_static(n.left) and is_static(n.right),
    cst.Comparison: lambda n: (
        is_static(n.left) and _all_static(c.comparator for c in n.comparisons)
    ),
    cst.Tuple: lambda n: _all_static(e.value for e in n.elements),
    cst.List: lambda n: _all_static(e.value for e in n.elements),
}


@dataclass
class ExprFacts:
    """What a statement's expressions contain, in source order."""

    calls: list[cst.Call] = field(default_factory=list)
    lambdas: list[cst.Lambda] = field(default_factory=list)
    dynamic_tests: list[tuple[str, cst.CSTNode, cst.BaseExpression]] = field(default_factory=list)
    yields: list[cst.CSTNode] = field(default_factory=list)


class _Scan(Visitor):
    """Collect calls, lambdas and value-dependent truth tests; lambda bodies are not entered."""

    def __init__(self) -> None:
        self.facts = ExprFacts()
        self._boolean_depth = 0

    def visit_Call(self, node: cst.Call) -> None:
        self.facts.calls.append(node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.facts.lambdas.append(node)
        return False

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if not is_static(node.test):
            self.facts.dynamic_tests.append(("if-else", node, node.test))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if self._boolean_depth == 0 and not is_static(node):
            keyword = "and" if isinstance(node.operator, cst.And) else "or"
            self.facts.dynamic_tests.append((keyword, node, node))
        self._boolean_depth += 1

    def leave_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._boolean_depth -= 1

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and not is_static(node.expression):
            self.facts.dynamic_tests.append(("not", node, node.expression))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) > 1 and not is_static(node):
            self.facts.dynamic_tests.append(("chained comparison", node, node))

    def visit_Yield(self, node: cst.Yield) -> None:
        self.facts.yields.append(node)

    def visit_Await(self, node: cst.Await) -> None:
        self.facts.yields.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


def scan(node: cst.CSTNode) -> ExprFacts:
    """The :class:`ExprFacts` of ``node`` (a statement or expression)."""
    visitor = _Scan()
    walk(node, visitor)
    return visitor.facts
