"""Step 2: classify every statement as graph-able or a graph break, without running user code.

The unit of classification is a statement (a one-line suite counts as one). A simple statement is
graph-able when every call in it resolves to NumPy, math, a safe builtin or an inlinable user
function, and it stores nothing the tracer does not model. An ``if`` with a static test (shapes,
dtypes, names, constants) and graph-able branches is graph-able as a whole; every other compound
statement stays in Python and its blocks are classified on their own. Loops are not breaks:
they stay in Python and their bodies get regions. The rules live in tables below.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from astcompile.frontend import loopcheck
from astcompile.frontend.breaks import BreakReason as R
from astcompile.frontend.breaks import GraphBreak
from astcompile.frontend.exprs import dotted_name, is_static, scan
from astcompile.frontend.names import (
    block_units,
    child_blocks,
    declared_names,
    function_locals,
    parameter_names,
    small_statements,
)
from astcompile.frontend.source import FunctionSource
from astcompile.frontend.statements import STATEMENT_RULES, Problem

Span = tuple[int, int, int, int]  # start line, start col, end line, end col in FunctionSource.text


class CallKind(Enum):
    GRAPHABLE = "graphable"  # NumPy, math, safe builtins, array methods, allow_in_graph
    INLINE_USER = "inline_user"  # user function whose whole source is graph-able
    BREAK_USER = "break_user"  # user function with breaks: compiled on its own
    DISABLED = "disabled"  # astcompile.disable'd callee
    DISALLOWED = "disallowed"  # op marked disallow_in_graph
    SIDE_EFFECT = "side_effect"  # print, open, np.random.*, ...
    GRAPH_BREAK = "graph_break"  # astcompile.graph_break()
    UNKNOWN = "unknown"  # anything else


#: Calls to user-defined Python functions: eager code routes them through ``__ac_call``.
USER_KINDS = frozenset({CallKind.INLINE_USER, CallKind.BREAK_USER, CallKind.DISABLED})

_CALL_REASONS = {
    CallKind.BREAK_USER: R.BREAKING_USER_CALL,
    CallKind.DISABLED: R.DISABLED_CALL,
    CallKind.DISALLOWED: R.DISALLOWED_CALL,
    CallKind.SIDE_EFFECT: R.SIDE_EFFECT,
    CallKind.GRAPH_BREAK: R.EXPLICIT_BREAK,
    CallKind.UNKNOWN: R.UNKNOWN_CALL,
}


class Resolver(Protocol):
    def classify_call(
        self, func: cst.BaseExpression, dotted: str | None
    ) -> tuple[CallKind, object | None]:
        """How a call to ``func`` (``dotted`` when it is a dotted name) behaves in a graph."""


@dataclass(frozen=True)
class FunctionAnalysis:
    """Every break of one function, plus what the rewrite needs to cut it into regions."""

    source: FunctionSource
    breaks: tuple[GraphBreak, ...]
    fully_graphable: bool  # no breaks and no loops: callers may inline it
    module: cst.Module | None = field(default=None, compare=False, repr=False)
    positions: Mapping[cst.CSTNode, CodeRange] | None = field(
        default=None, compare=False, repr=False
    )
    graphable: frozenset[Span] = frozenset()  # statement units that may join a region
    user_calls: frozenset[Span] = frozenset()  # calls to user functions (eager code: __ac_call)
    eager_only: bool = False  # generator or coroutine: no regions at all
    loop_notes: tuple[str, ...] = ()  # "path:line:col: note: loop at line L runs in Python ..."


class Verdict(Enum):
    GRAPHABLE = "graphable"
    RETURNS = "returns"  # graph-able, but contains a return: needs a return after it in its run
    EAGER = "eager"


def analyze_function(src: FunctionSource, resolver: Resolver) -> FunctionAnalysis:
    """Classify every statement of ``src``; nothing of the user's code is executed."""
    module = cst.parse_module(src.text)
    checker = _Checker(src, resolver, module)
    fdef = module.body[0]
    facts = scan(fdef.body)
    if fdef.asynchronous or facts.yields:
        kind = "a coroutine" if fdef.asynchronous else "a generator"
        checker.add(Problem(R.GENERATOR, fdef, {"name": src.name, "kind": kind}))
        for call in facts.calls:
            checker.classify(call)
        graphable: frozenset[Span] = frozenset()
    else:
        checker.block(fdef.body)
        graphable = frozenset(checker.graphable)
    breaks = tuple(sorted(checker.breaks, key=lambda b: (b.line, b.col)))
    return FunctionAnalysis(
        source=src,
        breaks=breaks,
        fully_graphable=not breaks and not checker.has_loops,
        module=module,
        positions=checker.positions,
        graphable=graphable,
        user_calls=frozenset(checker.user_calls),
        eager_only=bool(fdef.asynchronous or facts.yields),
        loop_notes=tuple(checker.loop_notes),
    )


class _Checker:
    """Walks one function: pure verdicts per unit, then reports where the verdict is a break."""

    def __init__(self, src: FunctionSource, resolver: Resolver, module: cst.Module) -> None:
        self.src, self.resolver, self.module = src, resolver, module
        self.positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        fdef = module.body[0]
        self.locals = function_locals(fdef)
        self.params = frozenset(parameter_names(fdef))
        self.declared = declared_names(fdef)
        self.lines = src.text.splitlines()
        self.breaks: list[GraphBreak] = []
        self.graphable: set[Span] = set()
        self.user_calls: set[Span] = set()
        self.has_loops = False
        self.loop_notes: list[str] = []
        self._kinds: dict[cst.Call, CallKind] = {}
        self._problems: dict[cst.CSTNode, list[Problem]] = {}
        self._verdicts: dict[tuple[cst.CSTNode, bool], Verdict] = {}

    # -- locations ---------------------------------------------------------------------------

    def span(self, node: cst.CSTNode) -> Span:
        where = self.positions[node]
        return (where.start.line, where.start.column, where.end.line, where.end.column)

    def text(self, node: cst.CSTNode, limit: int = 60) -> str:
        code = " ".join(self.module.code_for_node(node).split())
        return code if len(code) <= limit else code[: limit - 3] + "..."

    def add(self, problem: Problem) -> None:
        start = self.positions[problem.node].start
        self.breaks.append(
            GraphBreak(
                reason=problem.reason,
                detail=problem.reason.format(**problem.fields),
                filename=self.src.filename,
                line=self.src.def_line + start.line - 1,
                col=start.column + self.src.indent + 1,
                source_line=self.lines[start.line - 1].strip(),
                function=self.src.name,
            )
        )

    # -- pass 1: verdicts (pure, memoised) -----------------------------------------------------

    def verdict(self, unit: cst.CSTNode, allow_jumps: bool = False, in_loop: bool = False) -> Verdict:
        key = (unit, allow_jumps, in_loop)
        if key not in self._verdicts:
            self._verdicts[key] = self._verdict(unit, allow_jumps, in_loop)
        return self._verdicts[key]

    def _verdict(self, unit: cst.CSTNode, allow_jumps: bool, in_loop: bool) -> Verdict:
        smalls = small_statements(unit)
        if smalls:
            if loopcheck.body_problems(self, unit) if in_loop else self.problems(unit):
                return Verdict.EAGER
            jumps = (cst.Return,) if in_loop else (cst.Break, cst.Continue)
            if (in_loop or not allow_jumps) and any(isinstance(s, jumps) for s in smalls):
                return Verdict.EAGER
            has_return = any(isinstance(s, cst.Return) for s in smalls)
            return Verdict.RETURNS if has_return else Verdict.GRAPHABLE
        if isinstance(unit, (cst.For, cst.While)):
            return self._loop_verdict(unit)
        if not isinstance(unit, cst.If) or not all(
            self.static_test(n) or in_loop and not loopcheck.test_problems(self, n.test)
            for n in _if_chain(unit)
        ):
            return Verdict.EAGER
        inner = [
            self.verdict(u, allow_jumps, in_loop) for b in child_blocks(unit) for u in block_units(b)
        ]
        if Verdict.EAGER in inner:
            return Verdict.EAGER
        return Verdict.RETURNS if Verdict.RETURNS in inner else Verdict.GRAPHABLE

    def _loop_verdict(self, node: cst.For | cst.While) -> Verdict:
        """A loop whose head and body are graph-able becomes a native loop (see loopcheck)."""
        if not loopcheck.loop_head_ok(self, node):
            return Verdict.EAGER
        self.has_loops = True  # a caller cannot inline it: only region bodies lower loops
        body = [self.verdict(u, False, in_loop=True) for u in block_units(node.body)]
        return Verdict.GRAPHABLE if all(v is Verdict.GRAPHABLE for v in body) else Verdict.EAGER

    def static_test(self, branch: cst.If) -> bool:
        """Static (see exprs) and free of calls that cannot be traced."""
        return is_static(branch.test) and not self.expression_problems(branch.test)

    def problems(self, unit: cst.CSTNode) -> list[Problem]:
        """Why a simple unit cannot join a region (empty when it can)."""
        if unit not in self._problems:
            found: list[Problem] = []
            for small in small_statements(unit):
                rule = STATEMENT_RULES.get(type(small))
                found += rule(self, small) if rule else []
            self._problems[unit] = found + self.expression_problems(unit)
        return self._problems[unit]

    def expression_problems(self, node: cst.CSTNode) -> list[Problem]:
        facts = scan(node)
        found = []
        for call in facts.calls:
            kind = self.classify(call)
            if kind in (CallKind.GRAPHABLE, CallKind.INLINE_USER):
                continue
            reason = _CALL_REASONS[kind]
            if kind is CallKind.UNKNOWN and any(a.star for a in call.args):
                reason = R.STAR_ARGS
            found.append(Problem(reason, call, {"callee": self.text(call.func)}))
        for lam in facts.lambdas:
            found.append(Problem(R.NESTED_DEF, lam, {"kind": "lambda", "name": "<lambda>"}))
        for keyword, where, test in facts.dynamic_tests:
            found.append(
                Problem(R.DATA_DEPENDENT, where, {"keyword": keyword, "test": self.text(test)})
            )
        return found

    def classify(self, call: cst.Call) -> CallKind:
        """Locals are judged here (their values are unknown); everything else by the resolver."""
        if call not in self._kinds:
            dotted = dotted_name(call.func)
            if dotted and dotted.split(".")[0] in self.locals:
                kind = CallKind.GRAPHABLE if "." in dotted else CallKind.UNKNOWN
            elif dotted is None and isinstance(call.func, cst.Attribute):
                kind = CallKind.GRAPHABLE  # a method of a computed value: the tracer decides
            else:
                kind = self.resolver.classify_call(call.func, dotted)[0]
            if kind in USER_KINDS:
                self.user_calls.add(self.span(call))
            self._kinds[call] = kind
        return self._kinds[call]

    # -- pass 2: report breaks, mark graph-able units ----------------------------------------

    def block(self, block: cst.BaseSuite) -> None:
        units = block_units(block)
        for index, unit in enumerate(units):
            verdict = self.verdict(unit)
            if verdict is Verdict.GRAPHABLE or (
                verdict is Verdict.RETURNS
                and (small_statements(unit) or self._return_follows(units[index + 1 :]))
            ):
                self._mark(unit)
                continue
            handler = _COMPOUND_RULES.get(type(unit))
            if handler:
                handler(self, unit)
            else:
                for problem in self.problems(unit):
                    self.add(problem)

    def _mark(self, unit: cst.CSTNode) -> None:
        """Mark a graph-able unit and everything nested in it (the rewrite may still split it)."""
        self.graphable.add(self.span(unit))
        for block in child_blocks(unit):
            for inner in block_units(block):
                self._mark(inner)

    def _return_follows(self, units: list[cst.CSTNode]) -> bool:
        """A run with a nested return must end in a top-level return, on every path."""
        for unit in units:
            if self.verdict(unit) is Verdict.EAGER:
                return False
            if any(isinstance(s, cst.Return) for s in small_statements(unit)):
                return True
        return False

    def note_calls(self, *exprs: cst.CSTNode | None) -> None:
        """Classify calls in code that stays in Python, so user calls get routed."""
        for expr in exprs:
            if expr is not None:
                for call in scan(expr).calls:
                    self.classify(call)

    def descend(self, unit: cst.CSTNode) -> None:
        for block in child_blocks(unit):
            self.block(block)


def _if_chain(node: cst.If) -> list[cst.If]:
    chain = [node]
    while isinstance(chain[-1].orelse, cst.If):
        chain.append(chain[-1].orelse)
    return chain


def _first_jump(node: cst.CSTNode) -> cst.CSTNode | None:
    """The first break/continue in ``node``, else its first return."""
    found: dict[str, list[cst.CSTNode]] = {"loop": [], "return": []}

    class _Find(cst.CSTVisitor):
        def visit_Break(self, n: cst.Break) -> None:
            found["loop"].append(n)

        def visit_Continue(self, n: cst.Continue) -> None:
            found["loop"].append(n)

        def visit_Return(self, n: cst.Return) -> None:
            found["return"].append(n)

    node.visit(_Find())
    jumps = found["loop"] or found["return"]
    return jumps[0] if jumps else None


# -- compound statements that stay in Python ------------------------------------------------


def _report_if(checker: _Checker, node: cst.If) -> None:
    chain = _if_chain(node)
    for branch in chain:
        checker.note_calls(branch.test)
        if not checker.static_test(branch):
            keyword = "if" if branch is node else "elif"
            fields = {"keyword": keyword, "test": checker.text(branch.test)}
            checker.add(Problem(R.DATA_DEPENDENT, branch, fields))
    if checker.verdict(node, allow_jumps=True) is not Verdict.EAGER:
        jump = _first_jump(node)
        if jump is not None:
            keyword = type(jump).__name__.lower()
            checker.add(Problem(R.NESTED_JUMP, jump, {"keyword": keyword}))
    checker.descend(node)


def _report_loop(checker: _Checker, node: cst.For | cst.While) -> None:
    """A loop that stays in Python: its test and body are reported, and a note says why."""
    checker.has_loops = True
    before = len(checker.breaks)
    if isinstance(node, cst.While):
        checker.note_calls(node.test)
        if not is_static(node.test):
            fields = {"keyword": "while", "test": checker.text(node.test)}
            checker.add(Problem(R.DATA_DEPENDENT, node, fields))
    else:
        checker.note_calls(node.iter)
    checker.descend(node)
    inside = checker.breaks[before:]
    if inside:
        cause = min(inside, key=lambda b: (b.line, b.col))
        start = checker.positions[node].start
        line = checker.src.def_line + start.line - 1
        col = start.column + checker.src.indent + 1
        checker.loop_notes.append(
            f"{checker.src.filename}:{line}:{col}: note: loop at line {line} runs in Python "
            f"because of line {cause.line}: {cause.code} {cause.detail}"
        )


def _report_with(checker: _Checker, node: cst.With) -> None:
    checker.note_calls(*node.items)
    checker.add(Problem(R.WITH, node, {}))
    checker.descend(node)


def _report_try(checker: _Checker, node: cst.Try | cst.TryStar) -> None:
    checker.note_calls(*(h.type for h in node.handlers))
    checker.add(Problem(R.TRY_RAISE, node, {"keyword": "try"}))
    checker.descend(node)


def _report_match(checker: _Checker, node: cst.Match) -> None:
    checker.note_calls(node.subject)
    fields = {"keyword": "match", "test": checker.text(node.subject)}
    checker.add(Problem(R.DATA_DEPENDENT, node, fields))
    checker.descend(node)


def _report_def(checker: _Checker, node: cst.FunctionDef | cst.ClassDef) -> None:
    kind = "class" if isinstance(node, cst.ClassDef) else "function"
    checker.add(Problem(R.NESTED_DEF, node, {"kind": kind, "name": node.name.value}))


_COMPOUND_RULES: dict[type, Callable[[_Checker, cst.CSTNode], None]] = {
    cst.If: _report_if,
    cst.For: _report_loop,
    cst.While: _report_loop,
    cst.With: _report_with,
    cst.Try: _report_try,
    cst.TryStar: _report_try,
    cst.Match: _report_match,
    cst.FunctionDef: _report_def,
    cst.ClassDef: _report_def,
}
