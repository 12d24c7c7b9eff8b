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
Generators, and lists used other than returned, measured (``len``) or indexed (handed to
``sum``, ``np.array``, a helper, iterated by a ``for``: ``_used_only_as_a_list``), are not
lowered here: a grown list does not iterate in the trace, and no target lowers an array of its
run-time length, so the region traces them as before.
"""

from __future__ import annotations

import ast

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
    holder = _first_evaluated(stmt, kept)
    comp = holder[0] if holder else None
    if not isinstance(comp, ast.ListComp) or not _eligible(comp):
        return [stmt]
    name = f"__ac_list_{stmt.lineno}_{stmt.col_offset}"
    start = P.store(name, ast.List([], ast.Load()), stmt)
    loop = _loop(comp, name, stmt)
    holder[0] = P.load(name)
    return [start, P.located(loop, stmt), stmt]


def _first_evaluated(stmt: ast.stmt, kept: set[str]) -> list:
    """A one-item list whose item is the expression ``stmt`` evaluates first, when its value
    leaves as a list: the value of a ``return``, or of ``name = ...`` where every read of
    ``name`` is one of ``kept``; empty for other statements."""
    value = getattr(stmt, "value", None)
    if isinstance(stmt, ast.Return) and value is not None:
        return _Slot(stmt)
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    if value is None or not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or len(targets) != 1:
        return []
    target = targets[0]
    return _Slot(stmt) if isinstance(target, ast.Name) and target.id in kept else []


class _Slot(list):
    """``stmt.value`` as a one-item list: reading and replacing it in place."""

    def __init__(self, stmt: ast.stmt) -> None:
        super().__init__([stmt.value])
        self.stmt = stmt

    def __setitem__(self, index: int, value: ast.expr) -> None:
        self.stmt.value = value


def _eligible(comp: ast.ListComp) -> bool:
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


def _loop(comp: ast.ListComp, name: str, stmt: ast.stmt) -> ast.For:
    """``for <renamed target> in <iter>: [if ...:] name.append(<elt>)``, planned."""
    gen = comp.generators[0]
    renames = {n: f"{name.replace('list', 'item')}_{n}" for n in _target_names(gen.target)}
    renamer = _Rename(renames)
    method = ast.Attribute(P.load(name), "append", ast.Load())
    append = ast.Expr(ast.Call(method, [renamer.visit(comp.elt)], []))
    body: list[ast.stmt] = [append]
    for test in reversed(gen.ifs):
        branch = ast.If(renamer.visit(test), body, [])
        branch.ac_spec = BranchSpec(stmt.lineno, ())
        body = [branch]
    loop = ast.For(renamer.visit(gen.target), gen.iter, body, [])
    first = next(iter(renames.values()))
    loop.ac_spec = LoopSpec(stmt.lineno, first, (), unrolled=True)
    return loop


class _Rename(ast.NodeTransformer):
    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.renames:
            return ast.copy_location(ast.Name(self.renames[node.id], node.ctx), node)
        return node
