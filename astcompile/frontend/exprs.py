"""Facts about expressions that analysis needs: dotted names, calls, and static tests.

A test is *static* when its truth value depends only on shapes, dtypes, names and constants,
so the tracer can evaluate it once per guard set; anything else (``b.sum() < 0``) depends on
array values and must run in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import libcst as cst

from astcompile.frontend.tables import (
    FRAME_EVALS,
    FRAME_GETTERS,
    FRAME_READS,
    STATIC_ATTRIBUTES,
    STATIC_CALLS,
)
from astcompile.frontend.walk import Visitor, walk


def dotted_name(expr: cst.BaseExpression) -> str | None:
    """``np.linalg.svd`` for an attribute chain on a name, ``f`` for a name, else None."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted_name(expr.value)
        return f"{base}.{expr.attr.value}" if base else None
    return None


def is_static(expr: cst.CSTNode, dynamic: AbstractSet[str] = frozenset()) -> bool:
    """True when ``expr`` is built only from things whose value tracing fixes (see module doc).

    ``dynamic`` holds the locals computed from array values (:mod:`dynamic`): a test that reads
    one depends on array values as much as the expression it was assigned from.
    """
    rule = _STATIC_RULES.get(type(expr))
    return rule(expr, dynamic) if rule else False


def _all_static(nodes, dynamic: AbstractSet[str]) -> bool:
    return all(is_static(n, dynamic) for n in nodes)


def _static_name(node: cst.Name, dynamic: AbstractSet[str]) -> bool:
    return node.value not in dynamic


def _static_attribute(node: cst.Attribute, dynamic: AbstractSet[str]) -> bool:
    """``x.shape`` always; ``np.pi`` or ``cfg.eps`` unless the root is a dynamic local."""
    if node.attr.value in STATIC_ATTRIBUTES:
        return True
    dotted = dotted_name(node)
    return dotted is not None and dotted.split(".")[0] not in dynamic


def _static_subscript(node: cst.Subscript, dynamic: AbstractSet[str]) -> bool:
    """``x.shape[0]`` is static; ``x[0]`` reads array data."""
    base = node.value
    if not (isinstance(base, cst.Attribute) and base.attr.value in STATIC_ATTRIBUTES):
        return False
    return all(
        isinstance(e.slice, cst.Index) and is_static(e.slice.value, dynamic) for e in node.slice
    )


def _static_call(node: cst.Call, dynamic: AbstractSet[str]) -> bool:
    """``len(x)`` is static; ``len(np.nonzero(x)[0])`` has a shape that depends on values."""
    return dotted_name(node.func) in STATIC_CALLS and _all_static(
        (a.value for a in node.args), dynamic
    )


def _static_comparison(node: cst.Comparison, dynamic: AbstractSet[str]) -> bool:
    """``v is None`` compares identities, never array values, whatever ``v`` holds."""
    if all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
        return True
    parts = [node.left, *(c.comparator for c in node.comparisons)]
    return _all_static(parts, dynamic)


def _constant(node: cst.CSTNode, dynamic: AbstractSet[str]) -> bool:
    return True


_STATIC_RULES: dict[type, Callable[..., bool]] = {
    cst.Name: _static_name,
    cst.Integer: _constant,
    cst.Float: _constant,
    cst.Imaginary: _constant,
    cst.SimpleString: _constant,
    cst.ConcatenatedString: _constant,
    cst.Ellipsis: _constant,
    cst.Attribute: _static_attribute,
    cst.Subscript: _static_subscript,
    cst.Call: _static_call,
    cst.UnaryOperation: lambda n, d: is_static(n.expression, d),
    cst.BinaryOperation: lambda n, d: is_static(n.left, d) and is_static(n.right, d),
    cst.BooleanOperation: lambda n, d: is_static(n.left, d) and is_static(n.right, d),
    cst.Comparison: _static_comparison,
    cst.Tuple: lambda n, d: _all_static((e.value for e in n.elements), d),
    cst.List: lambda n, d: _all_static((e.value for e in n.elements), d),
}


@dataclass
class ExprFacts:
    """What a statement's expressions contain, in source order."""

    calls: list[cst.Call] = field(default_factory=list)
    lambdas: list[cst.Lambda] = field(default_factory=list)
    dynamic_tests: list[tuple[str, cst.CSTNode, cst.BaseExpression]] = field(default_factory=list)
    yields: list[cst.CSTNode] = field(default_factory=list)
    frame_reads: list[cst.Call] = field(default_factory=list)  # ``locals()``, ``vars()``
    formats: list[cst.FormattedString] = field(default_factory=list)  # ``f"{x}"``


def _reads_frame(name: str, args: Sequence[cst.Arg]) -> bool:
    """``locals()``, ``vars()``, ``dir()``, ``currentframe()``; ``eval(s)``/``exec(s)`` without
    a namespace of their own (``eval(s, g)`` reads ``g``; ``eval(s, None)`` the frame)."""
    if name in FRAME_READS:
        return not args
    if name in FRAME_GETTERS:
        return True
    plain = [a.value for a in args if not a.star and a.keyword is None]
    own = [v for v in plain[1:] if not (isinstance(v, cst.Name) and v.value == "None")]
    return name in FRAME_EVALS and not own


def _builtin(func: cst.BaseExpression) -> bool:
    """Whether ``func`` is ``builtins.name``."""
    owner = func.value if isinstance(func, cst.Attribute) else None
    return isinstance(owner, cst.Name) and owner.value == "builtins"


_STRINGS = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


class _Scan(Visitor):
    """Collect calls, lambdas and value-dependent truth tests; lambda bodies are not entered."""

    def __init__(self, dynamic: AbstractSet[str]) -> None:
        self.facts = ExprFacts()
        self.dynamic = dynamic
        self._boolean_depth = 0
        self._lowered: set[int] = set()  # ids of test parts lowered to traceable calls

    def visit_Call(self, node: cst.Call) -> None:
        self.facts.calls.append(node)
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, _STRINGS):
            self.facts.formats.append(node)  # ``"{}".format(x)``, ``", ".join(...)``
        if isinstance(func, cst.Attribute) and func.attr.value in FRAME_GETTERS:
            self.facts.frame_reads.append(node)  # ``sys._getframe()``: not ``df.eval(s)``
        elif isinstance(func, cst.Name) and _reads_frame(func.value, node.args):
            self.facts.frame_reads.append(node)
        elif _builtin(func) and _reads_frame(func.attr.value, node.args):
            self.facts.frame_reads.append(node)  # ``builtins.eval(s)``

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.facts.lambdas.append(node)
        return False

    def visit_IfExp(self, node: cst.IfExp) -> None:
        """``a if c else b`` is lowered to a branch (frontend/lowering.py): a run-time ``c``,
        with its ``and``/``or``/``not`` and chained comparisons, traces; no break."""
        self._mark_lowered(node.test)

    def _mark_lowered(self, test: cst.BaseExpression) -> None:
        self._lowered.add(id(test))
        if isinstance(test, cst.BooleanOperation):
            self._mark_lowered(test.left)
            self._mark_lowered(test.right)
        elif isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            self._mark_lowered(test.expression)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        lowered = id(node) in self._lowered
        if not lowered and self._boolean_depth == 0 and not is_static(node, self.dynamic):
            keyword = "and" if isinstance(node.operator, cst.And) else "or"
            self.facts.dynamic_tests.append((keyword, node, node))
        self._boolean_depth += 1

    def leave_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._boolean_depth -= 1

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if id(node) in self._lowered:
            return
        if isinstance(node.operator, cst.Not) and not is_static(node.expression, self.dynamic):
            self.facts.dynamic_tests.append(("not", node, node.expression))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if id(node) in self._lowered:
            return
        if len(node.comparisons) > 1 and not is_static(node, self.dynamic):
            self.facts.dynamic_tests.append(("chained comparison", node, node))

    def visit_Assert(self, node: cst.Assert) -> None:
        self._lowered.add(id(node.msg))  # runs in Python, only where the test fails

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        """A traced value formatted would be the tracer's own text, fixed at trace time."""
        if id(node) not in self._lowered and any(
            isinstance(part, cst.FormattedStringExpression) for part in node.parts
        ):
            self.facts.formats.append(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Modulo) and isinstance(node.left, _STRINGS):
            self.facts.formats.append(node)  # ``"%s" % x``

    def visit_Yield(self, node: cst.Yield) -> None:
        self.facts.yields.append(node)

    def visit_Await(self, node: cst.Await) -> None:
        self.facts.yields.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


def scan(node: cst.CSTNode, dynamic: AbstractSet[str] = frozenset()) -> ExprFacts:
    """The :class:`ExprFacts` of ``node`` (a statement or expression); see :func:`is_static`."""
    visitor = _Scan(dynamic)
    walk(node, visitor)
    return visitor.facts
