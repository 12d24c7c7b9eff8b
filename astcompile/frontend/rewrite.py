"""Step 3b: write the new function: region calls where runs were, breaks left as written.

Before::

    def toy_example(a, b):
        x = a / (np.abs(a) + 1)
        print("woo")
        if b.sum() < 0:
            b = b * -1
        return x * b

After (line numbers unchanged; region bodies are separate padded ``def``s)::

    def toy_example(a, b):
        (x,) = __ac_region_0(a)
        print("woo")
        if b.sum() < 0:
            (b,) = __ac_region_1(b)
        (__ac_ret,) = __ac_region_2(x, b); return __ac_ret

Eager code calls user functions through ``__ac_call(callee, ...)`` so the runtime can compile
them on their own. Every source produced here keeps the user's file lines (blank-line padding),
so tracebacks and trace-time diagnostics point at the user's code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import CodeRange

from astcompile.frontend.analysis import FunctionAnalysis
from astcompile.frontend.exprs import scan
from astcompile.frontend.local_names import function_locals, name_sets
from astcompile.frontend.region_cuts import Plan, Run, plan_regions
from astcompile.frontend.source import FunctionSource
from astcompile.frontend.spec import RET, UNBOUND_NAME, RegionSpec
from astcompile.frontend.tree import node_positions
from astcompile.frontend.walk import find

CALL = "__ac_call"
LOOP = "__ac_loop"


@dataclass(frozen=True)
class RewriteResult:
    source: str
    regions: tuple[RegionSpec, ...]
    analysis: FunctionAnalysis
    loop_reasons: Mapping[int, str] = field(default_factory=dict)  # file line -> why Python


def rewrite_function(
    src: FunctionSource,
    analysis: FunctionAnalysis,
    *,
    all_eager: bool = False,
    python_loops: frozenset[int] = frozenset(),
    python_lines: frozenset[int] = frozenset(),
) -> RewriteResult:
    """Cut ``src`` into regions (none with ``all_eager``) and route eager user calls; loops on
    the file lines ``python_loops`` stay Python loops (their bodies become regions), and the
    statements holding the file lines ``python_lines`` run as written (they failed to trace
    or lower outside any loop: the statements around them still compile)."""
    module, positions = analysis.module, analysis.positions
    if module is None or positions is None:
        module = cst.parse_module(src.text)
        positions = node_positions(module)
    fdef = module.body[0]
    units, calls = set(), set()
    plain = {line - src.def_line + 1 for line in python_lines}
    for node, where in positions.items():
        key = (where.start.line, where.start.column, where.end.line, where.end.column)
        holds = any(where.start.line <= line <= where.end.line for line in plain)
        if key in analysis.graphable and isinstance(node, _UNIT_TYPES) and not holds:
            units.add(node)
        elif key in analysis.user_calls and isinstance(node, cst.Call):
            calls.add(node)
    if all_eager or analysis.eager_only or scan(fdef.body).frame_reads:  # locals(): no regions
        units = set()
    line_of = {
        n: p.start.line for n, p in positions.items() if isinstance(n, (cst.For, cst.While, cst.If))
    }
    kept = {line - src.def_line + 1 for line in python_loops}
    line_of = {n: line for n, line in line_of.items() if line not in kept or isinstance(n, cst.If)}
    last_line_of = {n: positions[n].end.line for n in line_of}
    plan = plan_regions(fdef, units, src.fn, line_of, last_line_of)
    specs = tuple(_spec(run, _lines(run, positions), src) for run in plan.order)
    heights = {run.name: _height(run, module) for run in plan.order}
    loops = {
        n: (src.def_line + p.start.line - 1, src.def_line + p.end.line - 1)
        for n, p in positions.items()
        if isinstance(n, cst.For)
    }
    new_fdef = _keep_locals(fdef, fdef.visit(_Rewriter(plan, calls, heights, loops)))
    code = module.with_changes(body=[new_fdef]).code
    reasons = {src.def_line + line - 1: why for line, why in plan.loop_reasons.items()}
    return RewriteResult("\n" * (src.def_line - 1) + code, specs, analysis, reasons)


_UNIT_TYPES = (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.BaseCompoundStatement)


def _lines(run: Run, positions: Mapping[cst.CSTNode, CodeRange]) -> tuple[int, int]:
    """First and last line of a run, in the coordinates of FunctionSource.text."""
    return positions[run.units[0]].start.line, positions[run.units[-1]].end.line


def _height(run: Run, module: cst.Module) -> int:
    """Lines a run occupies from its first statement on (trailing comments of blocks included)."""
    total = sum(module.code_for_node(unit).count("\n") for unit in run.units)
    leading = getattr(run.units[0], "leading_lines", ())
    return max(total - len(leading), 1)


def _keep_locals(original: cst.FunctionDef, rewritten: cst.FunctionDef) -> cst.FunctionDef:
    """Names bound only inside regions must stay locals of the rewritten function.

    Otherwise eager code that reads one before it is bound would find a global of the same
    name (or raise NameError) instead of raising UnboundLocalError as the original does.
    """
    lost = function_locals(original) - function_locals(rewritten)
    lost = [n for n in name_sets(rewritten.body).reads if n in lost]
    if not lost or not isinstance(rewritten.body, cst.IndentedBlock):
        return rewritten
    keep = cst.parse_statement(
        f"if False:  # keeps {', '.join(lost)} local, as in the original\n"
        f"    {' = '.join(lost)} = None\n"
    )
    body = rewritten.body
    return rewritten.with_changes(body=body.with_changes(body=[*body.body, keep]))


# -- region bodies ----------------------------------------------------------------------------


def _spec(run: Run, lines: tuple[int, int], src: FunctionSource) -> RegionSpec:
    first, last = (src.def_line + line - 1 for line in lines)
    body = [_region_statement(unit) for unit in run.units]
    body[0] = body[0].with_changes(leading_lines=())
    body.append(cst.parse_statement(f"return {_tuple(run.outputs)}"))
    params = cst.Parameters(params=[cst.Param(cst.Name(p)) for p in run.params])
    fdef = cst.FunctionDef(cst.Name(run.name), params, cst.IndentedBlock(body))
    code = cst.Module(body=[fdef]).code
    return RegionSpec(
        name=run.name,
        params=run.params,
        outputs=run.outputs,
        globals_read=run.globals_read,
        body_source="\n" * max(first - 2, 0) + code,
        first_line=first,
        last_line=last,
        statement_count=sum(_count_statements(u) for u in run.units),
        structured=tuple(replace(s, line=src.def_line + s.line - 1) for s in run.structured),
    )


def _tuple(names: tuple[str, ...]) -> str:
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def _region_statement(unit: cst.CSTNode) -> cst.BaseStatement:
    """A unit as it reads inside a region: one-line suites become lines, returns are rewritten."""
    if isinstance(unit, cst.SimpleStatementSuite):
        unit = cst.SimpleStatementLine(body=unit.body)
    if isinstance(unit, cst.SimpleStatementLine):
        return unit.with_changes(body=[_top_return(s) for s in unit.body])
    return unit.visit(_NestedReturns())


def _top_return(small: cst.BaseSmallStatement) -> cst.BaseSmallStatement:
    """``return e`` at the top of a run becomes ``__ac_ret = e``; the caller returns it."""
    if not isinstance(small, cst.Return):
        return small
    value = small.value if small.value is not None else cst.Name("None")
    return cst.Assign(targets=[cst.AssignTarget(cst.Name(RET))], value=value)


class _NestedReturns(cst.CSTTransformer):
    """``return e`` inside a graph-able ``if`` returns the region's 1-tuple ``(e,)`` directly."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a local function's returns are its own

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        value = updated.value if updated.value is not None else cst.Name("None")
        if isinstance(value, cst.Tuple) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        element = cst.Element(value, comma=cst.Comma())
        return updated.with_changes(value=cst.Tuple([element]))


def _count_statements(unit: cst.CSTNode) -> int:
    """Statements in ``unit``, nested ones included (walked read-only: libcst's ``visit``
    rebuilds every node it passes, which was a third of a small function's rewrite)."""
    return len(find(unit, (cst.BaseSmallStatement, cst.BaseCompoundStatement)))


# -- the rewritten function ------------------------------------------------------------------


def _call_statement(run: Run, height: int) -> tuple[list[cst.SimpleStatementLine], int]:
    """The statement(s) that replace a run, and how many blank lines keep later lines in place."""
    span = height - 1
    call = f"{run.name}({', '.join(run.params)})"
    code = f"{_tuple(run.outputs)} = {call}" if run.outputs else call
    if run.unbound:  # the planner kept a line for each (frontend/loop_plan.py)
        unbind = [f"if {n} is {UNBOUND_NAME}: del {n}" for n in run.unbound]
        statements = [cst.parse_statement(line) for line in (code, *unbind)]
        return statements, span - len(unbind)
    if not run.returns:
        return [cst.parse_statement(code)], span
    if span == 0:
        return [cst.parse_statement(f"{code}; return {RET}")], 0
    return [cst.parse_statement(code), cst.parse_statement(f"return {RET}")], span - 1


def _route_call(call: cst.Call) -> cst.Call:
    """``helper(a, k=1)`` -> ``__ac_call(helper, a, k=1)``."""
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    first = cst.Arg(call.func, comma=comma) if call.args else cst.Arg(call.func)
    return call.with_changes(func=cst.Name(CALL), args=[first, *call.args])


class _Rewriter(cst.CSTTransformer):
    """Replaces planned runs by region calls and routes user calls in eager code."""

    def __init__(
        self,
        plan: Plan,
        calls: set[cst.Call],
        heights: dict[str, int],
        loops: dict[cst.For, tuple[int, int]],
    ):
        self.plan, self.calls, self.heights, self.loops = plan, calls, heights, loops

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.For:
        """A loop left in Python reports its trip count to ``explain``: ``__ac_loop(first
        line, last line, iterable)`` returns the iterable itself unless explain records."""
        first, last = self.loops[original]
        args = [
            cst.Arg(cst.Integer(str(first))),
            cst.Arg(cst.Integer(str(last))),
            cst.Arg(updated.iter),
        ]
        return updated.with_changes(iter=cst.Call(cst.Name(LOOP), args))

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node not in self.plan.in_region

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return _route_call(updated) if original in self.calls else updated

    def leave_SimpleStatementSuite(
        self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite
    ) -> cst.SimpleStatementSuite:
        runs = self.plan.runs.get(original)
        if not runs:
            return updated
        statements, _ = _call_statement(runs[0], 1)
        return updated.with_changes(body=statements[0].body)

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        runs = {run.units[0]: run for run in self.plan.runs.get(original, [])}
        if not runs:
            return updated
        body: list[cst.BaseStatement] = []
        pad, index = 0, 0
        while index < len(original.body):
            unit = original.body[index]
            run = runs.get(unit)
            if run is None:
                body.append(_pad(updated.body[index], pad))
                pad, index = 0, index + 1
                continue
            statements, extra = _call_statement(run, self.heights[run.name])
            leading = [cst.EmptyLine(indent=False)] * pad + list(unit.leading_lines)
            body += [statements[0].with_changes(leading_lines=leading), *statements[1:]]
            pad, index = extra, index + len(run.units)
        footer = [cst.EmptyLine(indent=False)] * pad + list(updated.footer)
        return updated.with_changes(body=body, footer=footer)


def _pad(statement: cst.BaseStatement, blank: int) -> cst.BaseStatement:
    if not blank:
        return statement
    return statement.with_changes(
        leading_lines=[cst.EmptyLine(indent=False)] * blank + list(statement.leading_lines)
    )
