"""Step 2b: which loops become native loops, and what a loop body may contain.

A ``for`` over ``range``/``enumerate``/``zip``/``np.ndindex`` (or over an array's first axis,
or a literal tuple or list)
and a ``while`` on a scalar test become LOOP nodes when their bodies are graph-able. Inside such
a body more is allowed than at region level, because the lowering (frontend/lowering.py) turns
it into traceable calls: ``break``/``continue``, ``and``/``or``/``not`` and chained comparisons
in ``if``/``while`` tests, and ``assert`` on values known only at run time.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from astcompile.frontend.callee_rules import CallKind
from astcompile.frontend.exprs import dotted_name
from astcompile.frontend.local_names import small_statements
from astcompile.frontend.statements import STATEMENT_RULES, Problem
from astcompile.frontend.walk import find

#: Iterables a ``for`` may lower from: the callee's dotted name -> its kind.
ITERABLES = {
    "range": "range",
    "enumerate": "enumerate",
    "zip": "zip",
    "np.ndindex": "ndindex",
    "numpy.ndindex": "ndindex",
}


def iter_kind(node: cst.For) -> str:
    """How ``node``'s iterable lowers: a key of ITERABLES' values, "array" (iteration over the
    first axis of a value), or "" when it cannot."""
    call = node.iter
    if not isinstance(call, cst.Call):
        # a literal ``(-1, 0, 1)`` iterates like a sequence read from a name; short ones unroll
        sequences = (cst.Name, cst.Attribute, cst.Subscript, cst.Tuple, cst.List)
        return "array" if isinstance(call, sequences) else ""
    kind = ITERABLES.get(dotted_name(call.func) or "", "")
    if any(a.star or (a.keyword and kind != "enumerate") for a in call.args):
        return ""
    return kind if _arity_ok(kind, call) else ""


def _arity_ok(kind: str, call: cst.Call) -> bool:
    count = len(call.args)
    if kind == "range":
        return 1 <= count <= 3
    if kind == "enumerate":
        return 1 <= count <= 2 and _enumerable(call.args[0].value)
    if kind == "zip":
        return count >= 1
    return kind == "ndindex"


def _enumerable(inner: cst.BaseExpression) -> bool:
    """``enumerate(range(a, b, c))`` needs a literal step (its index is ``(v - a) // c``)."""
    if isinstance(inner, cst.Call) and dotted_name(inner.func) == "range":
        args = inner.args
        if not 1 <= len(args) <= 3 or any(a.star or a.keyword for a in args):
            return False
        return len(args) < 3 or _literal_int(args[2].value)
    return not isinstance(inner, cst.Call)


def _literal_int(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return isinstance(expr, cst.Integer) and int(expr.value, 0) != 0


def plain_target(target: cst.BaseExpression) -> bool:
    """Names, or tuples of them: what a lowered loop may bind."""
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(isinstance(e, cst.Element) and plain_target(e.value) for e in target.elements)
    return False


def test_parts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of a test's ``and``/``or``/``not``/chained comparison, which lower to calls
    (trace/control.py), so only the operands themselves must be graph-able."""
    if isinstance(test, cst.BooleanOperation):
        return test_parts(test.left) + test_parts(test.right)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return test_parts(test.expression)
    if isinstance(test, cst.Comparison) and len(test.comparisons) > 1:
        return [test.left, *(c.comparator for c in test.comparisons)]
    return [test]


def test_problems(checker: Any, test: cst.BaseExpression) -> list[Problem]:
    """Why a test inside a lowered loop cannot be traced (empty when it can)."""
    return [p for part in test_parts(test) for p in checker.expression_problems(part)]


def body_problems(checker: Any, unit: cst.CSTNode) -> list[Problem]:
    """Like ``checker.problems`` for a simple unit inside a lowered loop: ``assert`` may test
    run-time values there (it becomes a check in the compiled code), and ``raise E(...)`` ends
    the loop (its exception is made in Python: frontend/loop_plan.py)."""
    found: list[Problem] = []
    for small in small_statements(unit):
        if isinstance(small, cst.Raise) and small.exc is not None and small.cause is None:
            continue
        if isinstance(small, cst.Assert):
            found += test_problems(checker, small.test)
            found += checker.expression_problems(small.msg, text_ok=True) if small.msg else []
            continue
        rule = STATEMENT_RULES.get(type(small))
        found += rule(checker, small) if rule else []
        found += checker.expression_problems(small)
    return found


def loop_head_ok(checker: Any, node: cst.For | cst.While) -> bool:
    """Whether the loop statement itself (not its body) can become a LOOP node."""
    if node.orelse is not None and not else_ok(node):
        return False  # while ... else, or jumps in the else: stays in Python
    if isinstance(node, cst.While):
        return not test_problems(checker, node.test)
    if node.asynchronous or not plain_target(node.target):
        return False
    kind = iter_kind(node)
    if not kind:
        return False
    if kind == "ndindex" and _breaks_out(node):
        return False
    calls = _head_calls(node, kind)
    if any(_root(call) in checker.locals for call in calls):
        return False  # ``range = ...`` or a parameter ``range``: what it holds runs as written
    if any(checker.classify(call) is not _graphable(checker) for call in calls):
        return False
    return not checker.expression_problems(node.iter)


def _root(call: cst.Call) -> str:
    return (dotted_name(call.func) or "").split(".")[0]


def _head_calls(node: cst.For, kind: str) -> list[cst.Call]:
    """The calls whose names the lowered loop reads as the builtins: the iterable's, and in
    ``enumerate(range(n))`` the inner ``range``'s too (a module's own ``range`` runs as
    written)."""
    if not isinstance(node.iter, cst.Call):
        return []
    inner = node.iter.args[0].value if kind == "enumerate" else None
    return [node.iter, *([inner] if isinstance(inner, cst.Call) else [])]


def else_ok(node: cst.For | cst.While) -> bool:
    """A ``for``'s ``else`` is lowered to ``if not brk:`` after the loop (frontend/lowering.py)
    when it holds no ``break``/``continue``/``return``/``raise`` (those would leave the code
    after the loop, or jump an enclosing loop)."""
    jumps = (cst.Break, cst.Continue, cst.Return, cst.Raise)
    return (
        isinstance(node, cst.For) and node.orelse is not None and not own_jumps(node.orelse, jumps)
    )


def _graphable(checker: Any) -> Any:
    from astcompile.frontend.analysis import CallKind

    return CallKind.GRAPHABLE


def _breaks_out(node: cst.For) -> bool:
    """A ``break`` of this loop (not of a nested one)."""
    return any(isinstance(j, cst.Break) for j in own_jumps(node.body))


def own_jumps(block: cst.CSTNode, kinds: tuple[type, ...] = (cst.Break, cst.Continue)) -> list:
    """``break``/``continue`` statements (or other ``kinds``) of the loop whose body is
    ``block``: not those of nested loops or local functions."""
    found: list[cst.CSTNode] = []

    class _Find(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if isinstance(n, kinds):
                found.append(n)
            return not isinstance(n, (cst.For, cst.While, cst.FunctionDef))

    block.visit(_Find())
    return found


def ends_in_return(unit: cst.CSTNode) -> bool:
    """Whether ``unit`` ends the function on every path that leaves it normally: a line
    holding a ``return``, or ``while True:`` holding a ``return`` and no ``break`` of its own
    (it leaves only by that return). A run ending in one ends with the function's return."""
    if isinstance(unit, cst.While):
        forever = isinstance(unit.test, cst.Name) and unit.test.value == "True"
        exits = own_jumps(unit.body, (cst.Break, cst.Return))
        only_returns = bool(exits) and all(isinstance(j, cst.Return) for j in exits)
        return forever and not unit.orelse and only_returns
    return any(isinstance(s, cst.Return) for s in small_statements(unit))


def user_call_kind(checker: Any, call: cst.Call, kind: CallKind, found: object) -> CallKind:
    """The kind of a call of the user function ``found``: one inlined with its loops is
    inlined only where the call is inside a loop of the caller (there a call per iteration
    is what inlining saves). Elsewhere the call is made as before, to the function compiled
    on its own: a callee whose trace fails inside the caller (a power of a loop value) made
    the first trace of the region around the call fail, a 200,000-step loop beside it
    included, and the compile budget so spent ran the function as written for a while
    (bench/programs/machin_pi: 163x plain before, 0.9x)."""
    loops_of = getattr(checker.resolver, "inlines_loops", None)
    if kind is not CallKind.INLINE_USER or loops_of is None or not loops_of(found):
        return kind
    return kind if _in_a_loop(checker, call) else CallKind.BREAK_USER


def _in_a_loop(checker: Any, call: cst.Call) -> bool:
    start, _, end, _ = checker.span(call)
    for loop in find(checker.fdef.body, (cst.For, cst.While)):
        first, _, last, _ = checker.span(loop)
        if first <= start and end <= last:
            return True
    return False
