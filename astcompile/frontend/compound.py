"""Rules for compound statements that stay in Python: the breaks each one reports.

Analysis asks these only for a compound statement that cannot join a region as a whole. Each
rule takes the analysis checker (for ``add``, ``text``, ``static_test``, ``note_calls``,
``descend`` and ``dynamic``) and the statement, reports its breaks, and descends into its
blocks, whose statements are classified on their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

from astcompile.frontend import nested
from astcompile.frontend.breaks import BreakReason as R
from astcompile.frontend.exprs import is_static
from astcompile.frontend.statements import Problem
from astcompile.frontend.walk import find


def if_chain(node: cst.If) -> list[cst.If]:
    chain = [node]
    while isinstance(chain[-1].orelse, cst.If):
        chain.append(chain[-1].orelse)
    return chain


def _first_jump(node: cst.CSTNode) -> cst.CSTNode | None:
    """The first break/continue in ``node``, else its first return."""
    jumps = find(node, (cst.Break, cst.Continue, cst.Return))
    loop = [j for j in jumps if not isinstance(j, cst.Return)]
    return (loop or jumps or [None])[0]


# -- compound statements that stay in Python ------------------------------------------------


def _report_if(checker: Any, node: cst.If) -> None:
    chain = if_chain(node)
    for branch in chain:
        checker.note_calls(branch.test)
        if not checker.static_test(branch):
            keyword = "if" if branch is node else "elif"
            fields = {"keyword": keyword, "test": checker.text(branch.test)}
            checker.add(Problem(R.DATA_DEPENDENT, branch, fields))
    if checker.graphable_with_jumps(node):
        jump = _first_jump(node)
        if jump is not None:
            keyword = type(jump).__name__.lower()
            checker.add(Problem(R.NESTED_JUMP, jump, {"keyword": keyword}))
    checker.descend(node)


def _report_loop(checker: Any, node: cst.For | cst.While) -> None:
    """A loop that stays in Python: its test and body are reported, and a note says why."""
    checker.has_loops = True
    before = len(checker.breaks)
    if isinstance(node, cst.While):
        checker.note_calls(node.test)
        if not is_static(node.test, checker.dynamic):
            fields = {"keyword": "while", "test": checker.text(node.test)}
            checker.add(Problem(R.DATA_DEPENDENT, node, fields))
    else:
        checker.note_calls(node.iter)
    checker.descend(node)
    inside = checker.breaks[before:]
    if inside:
        cause = min(inside, key=lambda b: (b.line, b.col))
        line, col = checker.location(node)
        checker.loop_notes.append(
            f"{checker.src.filename}:{line}:{col}: note: loop at line {line} runs in Python "
            f"because of line {cause.line}: {cause.code} {cause.detail}"
        )


def _report_with(checker: Any, node: cst.With) -> None:
    checker.note_calls(*node.items)
    checker.add(Problem(R.WITH, node, {}))
    checker.descend(node)


def _report_try(checker: Any, node: cst.Try | cst.TryStar) -> None:
    checker.note_calls(*(h.type for h in node.handlers))
    checker.add(Problem(R.TRY_RAISE, node, {"keyword": "try"}))
    checker.descend(node)


def _report_match(checker: Any, node: cst.Match) -> None:
    checker.note_calls(node.subject)
    fields = {"keyword": "match", "test": checker.text(node.subject)}
    checker.add(Problem(R.DATA_DEPENDENT, node, fields))
    checker.descend(node)


def _report_def(checker: Any, node: cst.FunctionDef | cst.ClassDef) -> None:
    """A local function reports why it cannot be inlined (frontend/nested.py); a class is
    created at run time."""
    local = checker.local_fns.get(node.name.value)
    if local is not None and local.node is node:
        nested.report(checker, local)
        return
    kind = "class" if isinstance(node, cst.ClassDef) else "function"
    fields = {"kind": kind, "name": node.name.value, "why": "is created at run time"}
    checker.add(Problem(R.NESTED_DEF, node, fields))


COMPOUND_RULES: dict[type, Callable[[Any, cst.CSTNode], None]] = {
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
