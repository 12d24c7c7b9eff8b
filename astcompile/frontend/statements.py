"""Rules for simple statements: which stores and statements keep a line out of a region.

Each rule takes the analysis checker (for ``text``, ``params``, ``declared`` and ``dynamic``) and one small
statement, and returns the problems found; an empty list means the statement may be traced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from astcompile.frontend.breaks import BreakReason as R
from astcompile.frontend.exprs import is_static


@dataclass(frozen=True)
class Problem:
    """A break found in the source, before it is located in the user's file."""

    reason: R
    node: cst.CSTNode
    fields: dict


def _store_problems(checker: Any, target: cst.BaseExpression) -> list[Problem]:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [p for e in target.elements for p in _store_problems(checker, e.value)]
    if isinstance(target, cst.StarredElement):
        return _store_problems(checker, target.value)
    fields = {"target": checker.text(target)}
    if isinstance(target, cst.Attribute):
        return [Problem(R.ATTRIBUTE_STORE, target, fields)]
    if isinstance(target, cst.Subscript):
        return _store_problems(checker, target.value) if _is_store_base(target.value) else []
    if isinstance(target, cst.Name) and target.value in checker.declared:
        what = "assignment to global/nonlocal"
        return [Problem(R.GLOBAL_NONLOCAL, target, {"what": what, "names": target.value})]
    return []


def _assign(checker: Any, node: cst.Assign) -> list[Problem]:
    return [p for t in node.targets for p in _store_problems(checker, t.target)]


def _ann_assign(checker: Any, node: cst.AnnAssign) -> list[Problem]:
    return _store_problems(checker, node.target) if node.value is not None else []


def _is_store_base(value: cst.BaseExpression) -> bool:
    """``obj.a[0] = v`` stores through an attribute: judged like ``obj.a = v``. Except
    ``z.real[0] = v`` and ``z.imag[0] = v``: views of ``z``, whose stores the tracer models
    (it breaks at trace time if ``z`` turns out not to be an array)."""
    if not isinstance(value, cst.Attribute):
        return False
    return not (value.attr.value in ("real", "imag") and isinstance(value.value, cst.Name))


def _aug_assign(checker: Any, node: cst.AugAssign) -> list[Problem]:
    """``x += v`` and ``x[i] += v`` write in place; the tracer models both as stores."""
    return _store_problems(checker, node.target)


def _declaration(checker: Any, node: cst.Global | cst.Nonlocal) -> list[Problem]:
    what = (
        "`global` declaration of" if isinstance(node, cst.Global) else "`nonlocal` declaration of"
    )
    names = ", ".join(n.name.value for n in node.names)
    return [Problem(R.GLOBAL_NONLOCAL, node, {"what": what, "names": names})]


def _assert(checker: Any, node: cst.Assert) -> list[Problem]:
    if is_static(node.test, checker.dynamic):
        return []
    return [Problem(R.DATA_DEPENDENT, node, {"keyword": "assert", "test": checker.text(node.test)})]


STATEMENT_RULES: dict[type, Callable[[Any, Any], list[Problem]]] = {
    cst.Assign: _assign,
    cst.AnnAssign: _ann_assign,
    cst.AugAssign: _aug_assign,
    cst.Global: _declaration,
    cst.Nonlocal: _declaration,
    cst.Assert: _assert,
    cst.Raise: lambda c, n: [Problem(R.TRY_RAISE, n, {"keyword": "raise"})],
    cst.Del: lambda c, n: [Problem(R.DELETE, n, {"target": c.text(n.target)})],
    cst.Import: lambda c, n: [Problem(R.IMPORT, n, {"what": c.text(n)})],
    cst.ImportFrom: lambda c, n: [Problem(R.IMPORT, n, {"what": c.text(n)})],
}
