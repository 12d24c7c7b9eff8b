"""Step 2: classify every statement as graph-able or a graph break, without running user code.

The unit of classification is a statement (a one-line suite counts as one). A simple statement is
graph-able when every call in it resolves to NumPy, math, a safe builtin or an inlinable user
function, and it stores nothing the tracer does not model. An ``if`` with a static test (shapes,
dtypes, names, constants) and graph-able branches is graph-able as a whole; every other compound
statement stays in Python and its blocks are classified on their own. Loops are not breaks:
they stay in Python and their bodies get regions. The rules are tables: simple statements in
:mod:`statements`, compound statements that stay in Python in :mod:`compound`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Protocol

import libcst as cst
from libcst.metadata import CodeRange

from astcompile.frontend import loopcheck, nested
from astcompile.frontend.breaks import BreakReason as R
from astcompile.frontend.breaks import GraphBreak
from astcompile.frontend.callee_rules import CallKind
from astcompile.frontend.compound import COMPOUND_RULES, if_chain
from astcompile.frontend.dynamic import dynamic_locals
from astcompile.frontend.exprs import dotted_name, is_static, scan
from astcompile.frontend.local_names import (
    block_units,
    child_blocks,
    declared_names,
    function_locals,
    name_sets,
    parameter_names,
    small_statements,
)
from astcompile.frontend.source import FunctionSource
from astcompile.frontend.statements import STATEMENT_RULES, Problem
from astcompile.frontend.tree import ModuleTree, Positions, cached

Span = tuple[int, int, int, int]  # start line, start col, end line, end col in FunctionSource.text


#: Calls to user-defined Python functions: eager code routes them through ``__ac_call``.
USER_KINDS = frozenset({CallKind.INLINE_USER, CallKind.BREAK_USER, CallKind.DISABLED})

_CALL_REASONS = {
    CallKind.BREAK_USER: R.BREAKING_USER_CALL,
    CallKind.DISABLED: R.DISABLED_CALL,
    CallKind.DISALLOWED: R.DISALLOWED_CALL,
    CallKind.SIDE_EFFECT: R.SIDE_EFFECT,
    CallKind.GRAPH_BREAK: R.EXPLICIT_BREAK,
    CallKind.UNKNOWN: R.UNKNOWN_CALL,
    CallKind.LOCAL_BREAK: R.LOCAL_CALL,
}


class Resolver(Protocol):
    def classify_call(
        self, func: cst.BaseExpression, dotted: str | None
    ) -> tuple[CallKind, object | None]:
        """How a call to ``func`` (``dotted`` when it is a dotted name) behaves in a graph."""


@dataclass(frozen=True)
class FunctionAnalysis:
    """Every break of one function, plus what the rewrite needs to cut it into regions.

    An analysis made from a :class:`ModuleTree` (the CLI's) is a report: its breaks,
    ``fully_graphable`` and ``breaking_calls`` are filled in, but not the rewrite's fields
    (``module``, ``positions``, ``graphable``, ``user_calls``), which are in text coordinates.
    """

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
    breaking_calls: tuple[str, ...] = ()  # names called that resolve to user functions with breaks
    loop_notes: tuple[str, ...] = ()  # "path:line:col: note: loop at line L runs in Python ..."

    @property
    def inlinable(self) -> bool:
        """No break, and no loop left in Python: a caller may inline it, its loops becoming
        the caller's native loops (frontend/callee_loops.py)."""
        return not self.breaks and not self.loop_notes and not self.eager_only


class Verdict(Enum):
    GRAPHABLE = "graphable"
    RETURNS = "returns"  # graph-able, but contains a return: needs a return after it in its run
    EAGER = "eager"


def analyze_function(
    src: FunctionSource, resolver: Resolver, tree: ModuleTree | None = None
) -> FunctionAnalysis:
    """Classify every statement of ``src``; nothing of the user's code is executed.

    With ``tree`` (``src``'s module, already parsed) the def is read from it, not parsed again.
    """
    checker = _Checker(src, resolver, tree)
    fdef = checker.fdef
    facts = scan(fdef.body)
    eager_only = bool(fdef.asynchronous or facts.yields)
    if eager_only:
        kind = "a coroutine" if fdef.asynchronous else "a generator"
        checker.add(Problem(R.GENERATOR, fdef, {"name": src.name, "kind": kind}))
        for call in facts.calls:
            checker.classify(call)
    else:
        checker.block(fdef.body)
    breaks = tuple(sorted(checker.breaks, key=lambda b: (b.line, b.col)))
    report = FunctionAnalysis(
        source=src,
        breaks=breaks,
        fully_graphable=not breaks and not checker.has_loops,
        eager_only=eager_only,
        breaking_calls=checker.breaking_calls(),
        loop_notes=tuple(checker.loop_notes),
    )
    if tree is not None:
        return report
    return replace(
        report,
        module=checker.module,
        positions=checker.positions,
        graphable=frozenset() if eager_only else frozenset(map(checker.span, checker.graphable)),
        user_calls=frozenset(map(checker.span, checker.user_calls)),
    )


class _Checker:
    """Walks one function: pure verdicts per unit, then reports where the verdict is a break."""

    def __init__(self, src: FunctionSource, resolver: Resolver, tree: ModuleTree | None) -> None:
        self.src, self.resolver = src, resolver
        fdef = tree.function_at(src.def_line) if tree is not None else None
        if tree is None or fdef is None:  # the decorator's case: the def's own text
            tree = ModuleTree.of_function(src)
            fdef = tree.module.body[0]
        self.tree, self.module, self.fdef = tree, tree.module, fdef
        self.locals = function_locals(fdef)
        self.params = frozenset(parameter_names(fdef))
        #: parameters the body never rebinds: a call of one is vetted by the tracer, which
        #: sees the value passed in (trace/reads.py, ``passed_in_problem``)
        self.passed_in = self.params - set(name_sets(fdef.body).writes)
        params = [*fdef.params.posonly_params, *fdef.params.params]
        self.receiver = params[0].name.value if params else None  # ``self``/``cls`` of a method
        self.declared = declared_names(fdef)
        self.dynamic = dynamic_locals(fdef)
        self.local_fns = nested.local_functions(fdef)
        self.inline_memo: dict[str, bool] = {}
        self.breaks: list[GraphBreak] = []
        self.graphable: list[cst.CSTNode] = []
        self.user_calls: list[cst.Call] = []
        self.breaking: list[cst.Call] = []  # calls by name to user functions with breaks
        self.has_loops = False
        self.loop_notes: list[str] = []
        self._kinds: dict[cst.Call, CallKind] = {}
        self._problems: dict[cst.CSTNode, list[Problem]] = {}
        self._verdicts: dict[tuple[cst.CSTNode, bool], Verdict] = {}

    # -- locations ---------------------------------------------------------------------------

    @cached
    def _located(self) -> tuple[Positions, int]:
        """Node positions, and what to add to their lines to get the file's lines."""
        return self.tree.locate(self.fdef)

    @property
    def positions(self) -> Positions:
        return self._located[0]

    def span(self, node: cst.CSTNode) -> Span:
        where = self.positions[node]
        return (where.start.line, where.start.column, where.end.line, where.end.column)

    def text(self, node: cst.CSTNode, limit: int = 60) -> str:
        code = " ".join(self.module.code_for_node(node).split())
        return code if len(code) <= limit else code[: limit - 3] + "..."

    def location(self, node: cst.CSTNode) -> tuple[int, int]:
        """(line, column) of ``node`` in the user's file, both from 1."""
        positions, line_offset = self._located
        start = positions[node].start
        return start.line + line_offset, start.column + self.tree.indent + 1

    def add(self, problem: Problem) -> None:
        line, col = self.location(problem.node)
        self.breaks.append(
            GraphBreak(
                reason=problem.reason,
                detail=problem.reason.format(**problem.fields),
                filename=self.src.filename,
                line=line,
                col=col,
                source_line=self.tree.lines[line - self.tree.first_line].strip(),
                function=self.src.name,
            )
        )

    # -- pass 1: verdicts (pure, memoised) -----------------------------------------------------

    def verdict(
        self, unit: cst.CSTNode, allow_jumps: bool = False, in_loop: bool = False
    ) -> Verdict:
        key = (unit, allow_jumps, in_loop)
        if key not in self._verdicts:
            self._verdicts[key] = self._verdict(unit, allow_jumps, in_loop)
        return self._verdicts[key]

    def _verdict(self, unit: cst.CSTNode, allow_jumps: bool, in_loop: bool) -> Verdict:
        smalls = small_statements(unit)
        if smalls:
            if loopcheck.body_problems(self, unit) if in_loop else self.problems(unit):
                return Verdict.EAGER
            jumps = (cst.Break, cst.Continue)  # in a loop: its own, lowered to flags
            if not (in_loop or allow_jumps) and any(isinstance(s, jumps) for s in smalls):
                return Verdict.EAGER
            # a return in a loop body ends the loop like a break (frontend/loop_plan.py)
            has_return = any(isinstance(s, cst.Return) for s in smalls)
            return Verdict.RETURNS if has_return else Verdict.GRAPHABLE
        if isinstance(unit, (cst.For, cst.While)):
            return self._loop_verdict(unit)
        if isinstance(unit, cst.FunctionDef):
            local = self.local_fns.get(unit.name.value)
            inline = local is not None and local.node is unit and nested.inlinable(self, local)
            return Verdict.GRAPHABLE if inline else Verdict.EAGER
        if not isinstance(unit, cst.If) or not all(
            self.static_test(n) or (in_loop and not loopcheck.test_problems(self, n.test))
            for n in if_chain(unit)
        ):
            return Verdict.EAGER
        inner = [
            self.verdict(u, allow_jumps, in_loop)
            for b in child_blocks(unit)
            for u in block_units(b)
        ]
        if Verdict.EAGER in inner:
            return Verdict.EAGER
        return Verdict.RETURNS if Verdict.RETURNS in inner else Verdict.GRAPHABLE

    def _loop_verdict(self, node: cst.For | cst.While) -> Verdict:
        """A loop whose head and body are graph-able becomes a native loop (see loopcheck)."""
        if not loopcheck.loop_head_ok(self, node):
            return Verdict.EAGER
        self.has_loops = True  # a caller cannot inline it: only region bodies lower loops
        body = [self.verdict(u, False, True) for b in child_blocks(node) for u in block_units(b)]
        if Verdict.EAGER in body:
            return Verdict.EAGER
        return Verdict.RETURNS if Verdict.RETURNS in body else Verdict.GRAPHABLE

    def static_test(self, branch: cst.If) -> bool:
        """Static (see exprs) and free of calls that cannot be traced."""
        return is_static(branch.test, self.dynamic) and not self.expression_problems(branch.test)

    def problems(self, unit: cst.CSTNode) -> list[Problem]:
        """Why a simple unit cannot join a region (empty when it can)."""
        if unit not in self._problems:
            found: list[Problem] = []
            for small in small_statements(unit):
                rule = STATEMENT_RULES.get(type(small))
                found += rule(self, small) if rule else []
            self._problems[unit] = found + self.expression_problems(unit)
        return self._problems[unit]

    def expression_problems(self, node: cst.CSTNode, text_ok: bool = False) -> list[Problem]:
        """``text_ok``: formatted text is fine (an assert's message: made only on failure)."""
        facts = scan(node, self.dynamic)
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
            found += nested.lambda_problems(self, lam)
        for text in [] if text_ok else facts.formats:
            found.append(
                Problem(R.TRACE_UNSUPPORTED, text, {"feature": "formatting a value as text"})
            )
        for keyword, where, test in facts.dynamic_tests:
            found.append(
                Problem(R.DATA_DEPENDENT, where, {"keyword": keyword, "test": self.text(test)})
            )
        return found

    def scope(self, node: nested.Function) -> _Checker:
        """A checker for a local function's body: its own locals over ours; the breaks, call
        lists and positions are shared, so its breaks are reported at their lines."""
        child = copy.copy(self)
        own = nested.scope_locals(node)
        child.locals = self.locals | own
        child.passed_in = self.passed_in - own
        child.local_fns = {n: f for n, f in self.local_fns.items() if n not in own}
        if isinstance(node, cst.FunctionDef):
            child.dynamic = self.dynamic | dynamic_locals(node)
            child.declared = frozenset()
        child.graphable = []
        return child

    def classify(self, call: cst.Call) -> CallKind:
        """Locals are judged here (their values are unknown); everything else by the resolver."""
        if call not in self._kinds:
            dotted = dotted_name(call.func)
            if dotted in self.local_fns:
                inline = nested.inlinable(self, self.local_fns[dotted])
                kind = CallKind.GRAPHABLE if inline else CallKind.LOCAL_BREAK
            elif dotted in self.passed_in:
                kind = CallKind.GRAPHABLE  # ``op(x)`` with ``op`` an argument: see __init__
            elif (method := self._method_kind(dotted)) is not None:
                kind = method
            elif dotted and dotted.split(".")[0] in self.locals:
                kind = CallKind.GRAPHABLE  # ``layer(x)``: the trace judges what it holds
            elif dotted is None and isinstance(call.func, cst.Attribute):
                kind = CallKind.GRAPHABLE  # a method of a computed value: the tracer decides
            else:
                found = self.resolver.classify_call(call.func, dotted)
                kind = loopcheck.user_call_kind(self, call, *found)
            if kind in USER_KINDS:
                self.user_calls.append(call)
            if kind is CallKind.BREAK_USER and isinstance(call.func, cst.Name):
                self.breaking.append(call)
            self._kinds[call] = kind
        return self._kinds[call]

    def _method_kind(self, dotted: str | None) -> CallKind | None:
        """``self.m(...)`` in a method: the resolver judges the class's ``m`` like a function
        called by name (None where it cannot: the trace then judges what ``self.m`` holds)."""
        root, _, attr = (dotted or "").partition(".")
        if not attr or "." in attr or root != self.receiver or root not in self.passed_in:
            return None
        classify = getattr(self.resolver, "classify_method", None)
        return classify(self.src, attr) if classify is not None else None

    def breaking_calls(self) -> tuple[str, ...]:
        """Names of the user functions with breaks that this function calls, in source order."""
        calls = sorted(self.breaking, key=self.span) if len(self.breaking) > 1 else self.breaking
        return tuple(dict.fromkeys(c.func.value for c in calls))

    # -- pass 2: report breaks, mark graph-able units ----------------------------------------

    def block(self, block: cst.BaseSuite) -> None:
        units = block_units(block)
        for index, unit in enumerate(units):
            verdict = self.verdict(unit)
            if verdict is Verdict.GRAPHABLE or (
                verdict is Verdict.RETURNS
                and (loopcheck.ends_in_return(unit) or self._return_follows(units[index + 1 :]))
            ):
                self._mark(unit)
                continue
            handler = COMPOUND_RULES.get(type(unit))
            if handler:
                handler(self, unit)
            else:
                for problem in self.problems(unit):
                    self.add(problem)

    def _mark(self, unit: cst.CSTNode) -> None:
        """Mark a graph-able unit and everything nested in it (the rewrite may still split it)."""
        self.graphable.append(unit)
        for block in child_blocks(unit):
            for inner in block_units(block):
                self._mark(inner)

    def _return_follows(self, units: list[cst.CSTNode]) -> bool:
        """A run with a nested return must end in a top-level return, on every path."""
        for unit in units:
            if self.verdict(unit) is Verdict.EAGER:
                return False
            if loopcheck.ends_in_return(unit):
                return True
        return False

    def note_calls(self, *exprs: cst.CSTNode | None) -> None:
        """Classify calls in code that stays in Python, so user calls get routed."""
        for expr in exprs:
            if expr is not None:
                for call in scan(expr).calls:
                    self.classify(call)

    def graphable_with_jumps(self, node: cst.CSTNode) -> bool:
        """Could ``node`` join a region if returns/breaks inside it were allowed?"""
        return self.verdict(node, allow_jumps=True) is not Verdict.EAGER

    def descend(self, unit: cst.CSTNode) -> None:
        for block in child_blocks(unit):
            self.block(block)
