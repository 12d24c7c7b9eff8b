"""How ``sum``, ``max``, ``min``, ``any`` and ``all`` fold a comprehension's items: the loop
frontend/comprehensions.py makes in place of the call, one rule per builtin (rules as data).

Each rule gives the statements before the loop (the accumulator's start), the loop body made of
the item, and the statements after it, so that the result is CPython's to the bit and the
type: ``sum`` adds to the int ``0`` in order, ``max``/``min`` compare each item with ``>``/``<``
against the one kept (the first of equal items stays; a NaN only when it comes first), ``any``
and ``all`` stop at the item that decides and give a bool.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from typing import NamedTuple

from astcompile.frontend import lowering_parts as P
from astcompile.frontend.spec import BranchSpec


class Fold(NamedTuple):
    """How ``name(<comprehension>)`` becomes a loop: the start statements, the body made of the
    item, the statements after the loop; the comprehensions it takes; ``start``: it takes a
    start value (``sum``); ``filters``: it takes ``if`` clauses."""

    build: Callable[[str, ast.stmt, ast.expr], tuple[list, Callable, list, dict]]
    takes: tuple[type, ...]
    start: bool = False
    filters: bool = True


def _sum(name: str, where: ast.stmt, start: ast.expr) -> tuple[list, Callable, list, dict]:
    """``acc = start; acc = acc + item``: Python's order, from Python's ``0``."""
    add = lambda elt: [P.store(name, ast.BinOp(P.load(name), ast.Add(), elt), where)]
    return [P.store(name, start, where)], add, [], {"carried": (name,)}


def _extreme(op: type) -> Callable:
    """``max``/``min``: the first item, then each item ``op`` (``>``/``<``) the one kept, as
    CPython compares (ties and NaN keep the earlier item). The result starts unbound: the
    trace takes the first item on its own (trace/loops.py ``first_alone``), so no ``if``
    clause may skip it, and never compiles a loop that leaves it unbound (no items): a
    run-time check that the loop runs hands such a call to the region's statements, which
    raise Python's ValueError."""
    word = "max" if op is ast.Gt else "min"

    def build(name: str, where: ast.stmt, _: object) -> tuple[list, Callable, list, dict]:
        empty, value = name.replace(word, "empty"), name.replace(word, "value")
        better = ast.Compare(P.load(value), [op()], [P.load(name)])
        test = ast.BoolOp(ast.Or(), [P.load(empty), better])
        keep = [P.store(name, P.load(value), where), P.store(empty, ast.Constant(False), where)]
        branch = ast.If(test, keep, [])
        branch.ac_spec = BranchSpec(where.lineno, (empty, name))
        body = lambda elt: [P.store(value, elt, where), branch]
        spec = {"carried": (empty, name), "unbound": (name,)}
        return [P.store(empty, ast.Constant(True), where)], body, [], spec

    return build


def _decided(found: bool) -> Callable:
    """``any``/``all``: a Python bool, the loop stops at the first item that decides it (later
    items are not evaluated, as in Python)."""

    def build(name: str, where: ast.stmt, _: object) -> tuple[list, Callable, list, dict]:
        word = "_any_" if found else "_all_"
        brk, go = name.replace(word, "_brk_"), name.replace(word, "_go_")
        stop = [P.store(name, ast.Constant(found), where), ast.Break()]
        test = (lambda e: e) if found else (lambda e: ast.UnaryOp(ast.Not(), e))

        def body(elt: ast.expr) -> list[ast.stmt]:
            branch = P.located(ast.If(test(elt), stop, []), where)
            branch.ac_spec = BranchSpec(where.lineno, (name, brk))
            return [branch]

        start = [P.store(name, ast.Constant(not found), where)]
        return start, body, [], {"carried": (name, brk), "brk": brk, "go": go}

    return build


COMPREHENSIONS = (ast.GeneratorExp, ast.ListComp)
#: Python >= 3.12 adds Python floats in ``sum`` with compensated summation, not in order.
SUM_IN_ORDER = sys.version_info < (3, 12)
#: The builtins whose comprehension argument becomes a loop (rules as data). ``any``/``all``
#: take generators only: a list comprehension evaluates every item before the first test.
FOLDS = {
    **({"sum": Fold(_sum, COMPREHENSIONS, start=True)} if SUM_IN_ORDER else {}),
    "max": Fold(_extreme(ast.Gt), COMPREHENSIONS, filters=False),
    "min": Fold(_extreme(ast.Lt), COMPREHENSIONS, filters=False),
    "any": Fold(_decided(True), (ast.GeneratorExp,)),
    "all": Fold(_decided(False), (ast.GeneratorExp,)),
}


#: ``__ac_builtin(sum, "sum")``: the trace runs the region as written where the name is not
#: Python's builtin (``from numpy import *`` binds ``sum``, ``max``, ``any``...).
BUILTIN = "__ac_builtin"


def start_of(rest: list[ast.expr], keywords: list[ast.keyword]) -> ast.expr | None:
    """``sum``'s start: ``0``, or a literal number given (None for anything else)."""
    given = rest + [k.value for k in keywords if k.arg == "start"]
    if len(given) != len(rest) + len(keywords) or len(given) > 1:
        return None
    start = given[0] if given else ast.Constant(0)
    ok = isinstance(start, ast.Constant) and type(start.value) in (int, float)
    return start if ok else None
