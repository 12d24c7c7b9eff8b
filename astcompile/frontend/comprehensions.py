"""List comprehensions of array work in a region body, lowered to one ``for`` loop.

The trace runs a comprehension as Python: one copy of its line per item, so a window mean over
500 windows is 500 reductions in one kernel, past the per-line budget (GB021), and the region
runs plain. Written as a loop that appends to a list the region made, the same work is one
native loop (trace/growing_lists.py), whatever the item count:

    w = [x[i:i + k].mean() for i in range(n) if i % 2]

    __ac_list_5_0 = []
    for __ac_item_5_0_i in range(n):
        if __ac_item_5_0_i % 2:
            __ac_list_5_0.append(x[__ac_item_5_0_i:__ac_item_5_0_i + k].mean())
    w = __ac_list_5_0

Python's semantics hold: the iterable is evaluated first, once, as in the comprehension; the
loop variable is renamed, so it does not leak into the function's scope; the items keep their
types (a list of np.float64s stays one, trace/lists.py). Only comprehensions evaluated first in
their statement are lowered (``w = [...]``, ``return f([...])`` with ``f`` a name or a module
attribute), so nothing the statement evaluates moves past them. Which ones (rules as data):
one ``for`` over ``range``/``enumerate``/``zip`` or a name, an element doing array work (a call
or a subscript), no nested scope or walrus inside, and not a literal range of at most
``SMALL_RANGE`` items (those unroll cheaply, and each copy sees its constant index).
Lists used other than returned, measured (``len``) or indexed (handed to ``np.array``, a
helper, iterated by a ``for``: ``_used_only_as_a_list``), are not lowered here: a grown list
does not iterate in the trace, and no target lowers an array of its run-time length, so the
region traces them as before.

``sum``, ``max``, ``min``, ``any`` and ``all`` of a generator or a list comprehension (FOLDS)
become the same loop with an accumulator in place of the list, exactly as CPython folds:

    return sum((a[i] - b[i]) ** 2 for i in range(n))

    __ac_builtin(sum, 'sum')                  # the name is Python's sum, or runs as written
    __ac_sum_7_11 = 0
    for __ac_sum_7_11_i in range(n):
        __ac_sum_7_11 = __ac_sum_7_11 + (a[__ac_sum_7_11_i] - b[__ac_sum_7_11_i]) ** 2
    return __ac_sum_7_11
"""

from __future__ import annotations

import ast
import builtins
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from astcompile.frontend import lowering_parts as P
from astcompile.frontend.spec import RET, BranchSpec, LoopSpec

#: Off: comprehensions are traced as Python, a copy per item (bench/unrolled.py's "before").
ENABLED = True
#: Iterables the loop lowering takes (frontend/lowering_parts.py ``_head``).
ITERABLES = frozenset({"range", "enumerate", "zip"})
#: Calls that only measure a list: a grown list may be handed to them.
MEASURED_BY = frozenset({"len"})
#: A ``range`` of literal ints with at most this many items keeps unrolling.
SMALL_RANGE = 8
#: Nodes that make the element or a condition not a plain expression of the loop variable.
_SCOPED = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr)
_WORK = (ast.Call, ast.Subscript)
_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr)


def lower_comprehensions(fdef: ast.FunctionDef) -> None:
    """Replace each eligible list comprehension of ``fdef`` by a loop before its statement."""
    if not ENABLED:
        return
    kept = _used_only_as_a_list(fdef)
    for node in list(ast.walk(fdef)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(isinstance(s, _STATEMENTS) for s in block):
                lowered = [new for stmt in block for new in _lowered(stmt, kept)]
                setattr(node, field, lowered)


def _used_only_as_a_list(fdef: ast.FunctionDef) -> set[str]:
    """Names whose every read in ``fdef`` returns (``return``, or a region's ``__ac_ret =``),
    measures (``len``) or indexes the value."""
    parents = {id(child): node for node in ast.walk(fdef) for child in ast.iter_child_nodes(node)}
    reads: dict[str, bool] = {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            ok = _kept_as_a_list(node, parents)
            reads[node.id] = reads.get(node.id, True) and ok
    return {name for name, ok in reads.items() if ok}


def _kept_as_a_list(name: ast.Name, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(name))
    while isinstance(parent, ast.Tuple):  # ``return w, len(w)``
        parent = parents.get(id(parent))
    if isinstance(parent, ast.Return) or _assigns_the_result(parent):
        return True
    if isinstance(parent, ast.Subscript):
        return parent.value is name
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id in MEASURED_BY
    )


def _assigns_the_result(node: ast.AST | None) -> bool:
    """``__ac_ret = ...``: a region body's ``return`` (frontend/spec.py RET)."""
    return isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == RET for t in node.targets
    )


def _lowered(stmt: ast.stmt, kept: set[str]) -> list[ast.stmt]:
    holder = _first_evaluated(stmt)
    comp = holder[0] if holder else None
    if isinstance(comp, (ast.Call, ast.Tuple)):
        return _folds_in_order(stmt, holder)
    if not isinstance(comp, ast.ListComp) or not eligible(comp) or not _kept(stmt, kept):
        return [stmt]
    name = f"__ac_list_{stmt.lineno}_{stmt.col_offset}"
    start = P.store(name, ast.List([], ast.Load()), stmt)
    method = ast.Attribute(P.load(name), "append", ast.Load())
    loop = comp_loop(comp, name, stmt, lambda elt: [ast.Expr(ast.Call(method, [elt], []))])
    holder[0] = P.load(name)
    return [start, P.located(loop, stmt), stmt]


def _first_evaluated(stmt: ast.stmt) -> list:
    """A one-item list whose item is the expression ``stmt`` evaluates first: the value of a
    ``return`` or of ``name = ...``, or the left operand of an arithmetic value (``return
    sum(...) / n``); empty for other statements."""
    value = getattr(stmt, "value", None)
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            return []
    elif not isinstance(stmt, ast.Return):
        return []
    if value is None:
        return []
    owner, field = stmt, "value"
    while isinstance(getattr(owner, field), ast.BinOp) and isinstance(
        getattr(owner, field).left, ast.Call
    ):
        owner, field = getattr(owner, field), "left"
    return _Slot(owner, field)


def _folds_in_order(stmt: ast.stmt, holder: list) -> list[ast.stmt]:
    """The fold in ``holder`` as a loop before ``stmt``; of a tuple (``return max(...),
    min(...)``), each item's while those before it were folds (Python evaluates them in
    order, and nothing else in between)."""
    slots = [holder]
    if isinstance(holder[0], ast.Tuple):
        slots = [_Slot(holder[0].elts, k) for k in range(len(holder[0].elts))]
    before: list[ast.stmt] = []
    for slot in slots:
        done = _folded(stmt, slot, slot[0]) if isinstance(slot[0], ast.Call) else None
        if done is None:
            break
        before += done
    return [*before, stmt]


def _kept(stmt: ast.stmt, kept: set[str]) -> bool:
    """A list's value leaves as a list: returned, or assigned to a name only kept as one."""
    if isinstance(stmt, ast.Return):
        return True
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
    return target.id in kept


class _Slot(list):
    """``owner.<field>`` (or ``owner[field]``, an item of a list) as a one-item list: reading
    and replacing it in place."""

    def __init__(self, owner: Any, field: str | int) -> None:
        self.owner, self.field = owner, field
        super().__init__([owner[field] if isinstance(field, int) else getattr(owner, field)])

    def __setitem__(self, index: int, value: ast.expr) -> None:
        if isinstance(self.field, int):
            self.owner[self.field] = value
        else:
            setattr(self.owner, self.field, value)


def eligible(comp: ast.ListComp | ast.GeneratorExp) -> bool:
    if len(comp.generators) != 1 or comp.generators[0].is_async:
        return False
    gen = comp.generators[0]
    names = _target_names(gen.target)
    inner = [comp.elt, *gen.ifs]
    return (
        names is not None
        and _iterable(gen.iter)
        and not any(isinstance(n, _SCOPED) for part in inner for n in ast.walk(part))
        and any(isinstance(n, _WORK) for n in ast.walk(comp.elt))
    )


def _target_names(target: ast.expr) -> list[str] | None:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return [e.id for e in target.elts]
    return None


def _iterable(it: ast.expr) -> bool:
    if isinstance(it, ast.Name):
        return True
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)):
        return False
    if it.func.id not in ITERABLES or not it.args:
        return False
    if it.func.id != "range" or it.keywords:
        return not it.keywords or it.func.id == "enumerate"
    literal = [a.value for a in it.args if isinstance(a, ast.Constant) and type(a.value) is int]
    return len(literal) != len(it.args) or len(range(*literal)) > SMALL_RANGE


def comp_loop(
    comp: ast.ListComp | ast.GeneratorExp,
    name: str,
    stmt: ast.stmt,
    body_of: Callable[[ast.expr], list[ast.stmt]],
    carried: tuple[str, ...] = (),
    **spec: Any,
) -> ast.For:
    """``for <renamed target> in <iter>: [if ...:] <body_of(renamed elt)>``, planned as a loop
    carrying ``carried`` (``spec``: more LoopSpec fields)."""
    gen = comp.generators[0]
    renames = {n: f"{name.replace('list', 'item')}_{n}" for n in _target_names(gen.target)}
    renamer = _Rename(renames)
    body = body_of(renamer.visit(comp.elt))
    for test in reversed(gen.ifs):
        branch = ast.If(renamer.visit(test), body, [])
        branch.ac_spec = BranchSpec(stmt.lineno, carried)
        body = [branch]
    loop = ast.For(renamer.visit(gen.target), gen.iter, body, [])
    first = next(iter(renames.values()))
    loop.ac_spec = LoopSpec(stmt.lineno, first, carried, unrolled=True, **spec)
    return loop


class _Rename(ast.NodeTransformer):
    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.renames:
            return ast.copy_location(ast.Name(self.renames[node.id], node.ctx), node)
        return node


# -- sum/max/min/any/all of a generator or comprehension: a loop with an accumulator ----------


class _Fold(NamedTuple):
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
    CPython compares (ties and NaN keep the earlier item); none raises Python's ValueError
    (a run-time check: the region's statements raise it). The trace takes the first item on
    its own (trace/loops.py ``first_alone``), so no ``if`` clause may skip it."""
    word = "max" if op is ast.Gt else "min"

    def build(name: str, where: ast.stmt, _: object) -> tuple[list, Callable, list, dict]:
        empty, value = name.replace(word, "empty"), name.replace(word, "value")
        better = ast.Compare(P.load(value), [op()], [P.load(name)])
        test = ast.BoolOp(ast.Or(), [P.load(empty), better])
        keep = [P.store(name, P.load(value), where), P.store(empty, ast.Constant(False), where)]
        branch = ast.If(test, keep, [])
        branch.ac_spec = BranchSpec(where.lineno, (empty, name))
        body = lambda elt: [P.store(value, elt, where), branch]
        error = ast.Call(P.load("ValueError"), [ast.Constant(_empty_message(word))], [])
        raised = ast.Expr(P.call(P.RAISE_IF, [P.load(empty), P.lambda_of(error)]))
        spec = {"carried": (empty, name), "unbound": (name,)}
        return [P.store(empty, ast.Constant(True), where)], body, [P.located(raised, where)], spec

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


def _empty_message(word: str) -> str:
    """Python's own words for ``max()`` of nothing (they change between versions)."""
    try:
        getattr(builtins, word)(())
    except ValueError as error:
        return str(error)
    raise AssertionError(word)  # pragma: no cover - Python always raises


_COMPS = (ast.GeneratorExp, ast.ListComp)
#: Python >= 3.12 adds Python floats in ``sum`` with compensated summation, not in order.
SUM_IN_ORDER = sys.version_info < (3, 12)
#: The builtins whose comprehension argument becomes a loop (rules as data). ``any``/``all``
#: take generators only: a list comprehension evaluates every item before the first test.
FOLDS = {
    **({"sum": _Fold(_sum, _COMPS, start=True)} if SUM_IN_ORDER else {}),
    "max": _Fold(_extreme(ast.Gt), _COMPS, filters=False),
    "min": _Fold(_extreme(ast.Lt), _COMPS, filters=False),
    "any": _Fold(_decided(True), (ast.GeneratorExp,)),
    "all": _Fold(_decided(False), (ast.GeneratorExp,)),
}


def _folded(stmt: ast.stmt, holder: list, call: ast.Call) -> list[ast.stmt] | None:
    """The statements computing ``sum(<comprehension>)`` (or another of FOLDS) before
    ``stmt``, which then reads their result in place of ``call``; None where the call is not
    one of them, or has more arguments than the items (``key=``, ``default=``) or a start that
    is not a number."""
    func = call.func.id if isinstance(call.func, ast.Name) else ""
    fold, args = FOLDS.get(func), list(call.args)
    if fold is None or not args or not isinstance(args[0], fold.takes) or not eligible(args[0]):
        return None
    if args[0].generators[0].ifs and not fold.filters:
        return None
    if fold.start:
        start = _start(args[1:], call.keywords)
    else:  # ``key=``, ``default=``: Python's own call
        start = None if len(args) > 1 or call.keywords else ast.Constant(None)
    if start is None:
        return None
    name = f"__ac_{func}_{call.lineno}_{call.col_offset}"
    head, body_of, tail, spec = fold.build(name, stmt, start)
    loop = comp_loop(args[0], name, stmt, body_of, **spec)
    check = P.located(ast.Expr(P.call(BUILTIN, [P.load(func), ast.Constant(func)])), stmt)
    holder[0] = P.load(name)
    return [check, *head, P.located(loop, stmt), *tail]


#: ``__ac_builtin(sum, "sum")``: the trace runs the region as written where the name is not
#: Python's builtin (``from numpy import *`` binds ``sum``, ``max``, ``any``...).
BUILTIN = "__ac_builtin"


def _start(rest: list[ast.expr], keywords: list[ast.keyword]) -> ast.expr | None:
    """``sum``'s start: ``0``, or a literal number given (None for anything else)."""
    given = rest + [k.value for k in keywords if k.arg == "start"]
    if len(given) != len(rest) + len(keywords) or len(given) > 1:
        return None
    start = given[0] if given else ast.Constant(0)
    ok = isinstance(start, ast.Constant) and type(start.value) in (int, float)
    return start if ok else None
