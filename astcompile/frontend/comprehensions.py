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
from collections.abc import Callable
from typing import Any

from astcompile.frontend import folds as F
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
    if not isinstance(comp, ast.ListComp) or holder.owner is not stmt:
        return [stmt]
    if not eligible(comp) or not _kept(stmt, kept):
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
    slot = _Slot(stmt, "value")
    while (inner := _evaluated_first_in(slot[0])) is not None:
        slot = _Slot(*inner)
    return slot


def _evaluated_first_in(node: ast.expr) -> tuple[Any, str | int] | None:
    """Where in ``node`` a fold would be evaluated first (the node holding it, the field):
    the left operand of an arithmetic operation, the first argument of ``f(...)`` or
    ``math.f(...)`` that is not itself a fold (loading ``f`` does nothing else)."""
    if isinstance(node, ast.BinOp) and isinstance(node.left, ast.Call):
        return node, "left"
    if not isinstance(node, ast.Call) or not node.args or isinstance(node.args[0], ast.Starred):
        return None
    func = node.func
    named = isinstance(func, ast.Name) and func.id not in F.FOLDS
    if named or (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return (node.args, 0) if isinstance(node.args[0], (ast.Call, ast.BinOp)) else None
    return None


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


def eligible(comp: ast.ListComp | ast.GeneratorExp, worked: str = "element") -> bool:
    """One plain ``for``, and array work in the element (``worked="element"``), or in the
    element or a condition (``"anywhere"``: a fold's ``sum(1 for ... if x[i] > t)``)."""
    if len(comp.generators) != 1 or comp.generators[0].is_async:
        return False
    gen = comp.generators[0]
    names = _target_names(gen.target)
    inner = [comp.elt, *gen.ifs]
    working = inner if worked == "anywhere" else [comp.elt]
    return (
        names is not None
        and _iterable(gen.iter)
        and not any(isinstance(n, _SCOPED) for part in inner for n in ast.walk(part))
        and any(isinstance(n, _WORK) for part in working for n in ast.walk(part))
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


# -- sum/max/min/any/all of a generator or comprehension (frontend/folds.py) ------------------


def _folded(stmt: ast.stmt, holder: list, call: ast.Call) -> list[ast.stmt] | None:
    """The statements computing ``sum(<comprehension>)`` (or another of FOLDS) before
    ``stmt``, which then reads their result in place of ``call``; None where the call is not
    one of them, or has more arguments than the items (``key=``, ``default=``) or a start that
    is not a number."""
    func = call.func.id if isinstance(call.func, ast.Name) else ""
    fold, args = F.FOLDS.get(func), list(call.args)
    if not (fold and args and isinstance(args[0], fold.takes) and eligible(args[0], "anywhere")):
        return None
    if args[0].generators[0].ifs and not fold.filters:
        return None
    if fold.start:
        start = F.start_of(args[1:], call.keywords)
    else:  # ``key=``, ``default=``: Python's own call
        start = None if len(args) > 1 or call.keywords else ast.Constant(None)
    if start is None:
        return None
    name = f"__ac_{func}_{call.lineno}_{call.col_offset}"
    head, body_of, tail, spec = fold.build(name, stmt, start)
    loop = comp_loop(args[0], name, stmt, body_of, **spec)
    check = P.located(ast.Expr(P.call(F.BUILTIN, [P.load(func), ast.Constant(func)])), stmt)
    holder[0] = P.load(name)
    return [check, *head, P.located(loop, stmt), *tail]
