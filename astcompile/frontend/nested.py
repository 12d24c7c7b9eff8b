"""Local functions: ``def`` statements and ``name = lambda ...`` inside a compiled function.

A region body is the user's statements run as a Python function with symbolic values, so a call
to a closure made while tracing simply runs the closure's body on those values: it is inlined.
The function object itself never needs to exist in compiled code, provided it never crosses a
region's edge (a new closure per call would fail an identity guard on every call). Analysis
therefore treats a call of a local function like a call of an inlinable user function when
nothing can make tracing differ from Python:

* the name is bound once, by the ``def``/``lambda``, and only *called*, never passed, returned
  or stored, and only after the definition, in the block that defines it (or blocks nested in
  it), so the planner can keep the definition and every call in one region;
* no decorator, ``async``, ``yield``, loop, or recursion;
* Python's late binding survives lowering: loops and branches in compiled loops become inner
  functions whose assignments are their own locals, so a closure defined *outside* such a
  statement would read a stale value of a variable assigned *inside* it. A variable the local
  function reads may thus only be assigned in statements that enclose its definition (or in
  plain statements, never inside another compound statement);
* its own body is graph-able by the same rules as the function's (checked by the analysis).

Anything else keeps the old behaviour: the definition runs in Python (GB018) and the calls are
breaks (GB022).
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import libcst as cst

from astcompile.frontend.breaks import BreakReason as R
from astcompile.frontend.exprs import scan
from astcompile.frontend.local_names import (
    NameSets,
    block_units,
    child_blocks,
    declared_names,
    name_sets,
    parameter_names,
    small_statements,
)
from astcompile.frontend.statements import Problem
from astcompile.frontend.walk import find

Function = cst.FunctionDef | cst.Lambda


@dataclass(frozen=True)
class LocalFunction:
    """One function bound in the compiled function's own scope."""

    name: str
    node: Function
    unit: cst.CSTNode  # the statement that binds it
    block: cst.BaseSuite  # the block holding ``unit``
    ancestors: tuple[cst.CSTNode, ...]  # compound statements around ``unit``, outermost first


def local_functions(fdef: cst.FunctionDef) -> dict[str, LocalFunction]:
    """Every ``def`` statement and ``name = lambda`` of ``fdef``'s own scope, by name (the last
    one wins; :func:`structural_problem` rejects names bound more than once)."""
    return {lf.name: lf for lf in _definitions(fdef.body, ())}


def _definitions(block: cst.BaseSuite, ancestors: tuple) -> Iterator[LocalFunction]:
    for unit in block_units(block):
        if isinstance(unit, cst.FunctionDef):
            yield LocalFunction(unit.name.value, unit, unit, block, ancestors)
        for small in small_statements(unit):
            lam = bound_lambda(small)
            if lam is not None:
                yield LocalFunction(lam[0], lam[1], unit, block, ancestors)
        for child in child_blocks(unit):
            yield from _definitions(child, (*ancestors, unit))


def bound_lambda(small: cst.CSTNode) -> tuple[str, cst.Lambda] | None:
    """``name = lambda ...`` -> (name, lambda)."""
    if not (isinstance(small, cst.Assign) and isinstance(small.value, cst.Lambda)):
        return None
    if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
        return None
    return small.targets[0].target.value, small.value


def structural_problem(fdef: cst.FunctionDef, lf: LocalFunction) -> str | None:
    """Why ``lf`` cannot be inlined whatever its body holds (None when it may be)."""
    node = lf.node
    if isinstance(node, cst.FunctionDef):
        if node.decorators:
            return "cannot be inlined: it is decorated"
        if node.asynchronous or scan(node.body).yields:
            return "cannot be inlined: it is a generator or coroutine"
        if find(node.body, (cst.For, cst.While)):
            return "cannot be inlined: it has a loop"
        if find(node.body, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return "cannot be inlined: it defines a function of its own"
    if _bindings(fdef, lf.name) != 1:
        return f"cannot be inlined: `{lf.name}` is bound more than once"
    use = _use_problem(fdef, lf)
    if use:
        return f"cannot be inlined: {use}"
    stale = _late_binding_problem(fdef, lf)
    if stale:
        return (
            f"cannot be inlined: `{stale}`, which it reads, is assigned inside a compound "
            "statement that does not contain the definition"
        )
    return None


class _Bindings(NameSets):
    """Counts the bindings of each name (a ``NameSets`` only records that there is one)."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[str, int] = {}

    def store(self, target: cst.BaseExpression, scoped: bool = False) -> None:
        if isinstance(target, cst.Name) and not scoped:
            self.counts[target.value] = self.counts.get(target.value, 0) + 1
        super().store(target, scoped)


def _bindings(fdef: cst.FunctionDef, name: str) -> int:
    """How many statements bind ``name``; a parameter, a ``global``/``nonlocal`` or a walrus
    inside a comprehension counts as two (never a plain local function)."""
    if name in parameter_names(fdef) or name in declared_names(fdef):
        return 2
    counter = _Bindings()
    counter.walk(fdef.body)
    count = counter.counts.get(name, 0)
    return count if name not in counter.writes or count else 2


def _use_problem(fdef: cst.FunctionDef, lf: LocalFunction) -> str | None:
    """Every other occurrence of the name must be a callee after the definition in its block.

    Occurrences are found as names, so an attribute or keyword spelled the same also counts:
    conservative, never wrong.
    """
    units = block_units(lf.block)
    later = units[units.index(lf.unit) + 1 :]
    allowed = {id(n) for unit in later for n in find(unit, cst.Name)}
    binding = lf.node.name if isinstance(lf.node, cst.FunctionDef) else None
    callees = {id(call.func) for call in find(fdef.body, cst.Call)}
    inside = {id(n) for n in find(lf.node, cst.Name)}
    for name in find(fdef.body, cst.Name):
        if name.value != lf.name or name is binding or _is_target(name, lf):
            continue
        if id(name) in inside:
            return "it is recursive"
        if id(name) not in allowed:
            return "it is used before its definition or outside the block that defines it"
        if id(name) not in callees:
            return "it is used as a value, not only called"
    return None


def _is_target(name: cst.Name, lf: LocalFunction) -> bool:
    smalls = small_statements(lf.unit)
    return any(
        isinstance(s, cst.Assign) and s.value is lf.node and s.targets[0].target is name
        for s in smalls
    )


def _late_binding_problem(fdef: cst.FunctionDef, lf: LocalFunction) -> str | None:
    """A variable the function reads that a compound statement not enclosing it assigns."""
    free = set(name_sets(lf.unit).reads) - {lf.name}
    for compound in _compounds(fdef.body):
        if compound in lf.ancestors:
            continue
        assigned = free & name_sets(compound).writes.keys()
        if assigned:
            return sorted(assigned)[0]
    return None


def _compounds(block: cst.BaseSuite) -> Iterator[cst.CSTNode]:
    """The compound statements of a block and of the blocks nested in them (defs excluded)."""
    for unit in block_units(block):
        blocks = child_blocks(unit)
        if blocks:
            yield unit
        for child in blocks:
            yield from _compounds(child)


def scope_locals(node: Function) -> frozenset[str]:
    """The names local to a local function: its parameters and what its body binds."""
    params = node.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    names = {p.name.value for p in every}
    if isinstance(node, cst.FunctionDef):
        names |= set(name_sets(node.body).writes)
    return frozenset(names)


@dataclass(frozen=True)
class ClosureReads:
    """What each nested ``def``/``lambda`` reads from its cells, with the name whose calls run
    it: a local function that is only called runs where its name is live; any other (None:
    passed, returned, stored, a local class's method) may run whenever."""

    reads: tuple[tuple[str | None, frozenset[str]], ...]
    holders: frozenset[str] = frozenset()  # the names a def or a lambda is bound to
    ids: tuple[int, ...] = ()  # the id of each one's node (one made in a region: its cells)

    def after(self, live: AbstractSet[str]) -> set[str]:
        """The cells read by the closures that may run where the names ``live`` are live."""
        return {n for fn, names in self.reads if fn is None or fn in live for n in names}

    def within(self, run: list[cst.CSTNode], local: AbstractSet[str]) -> set[str]:
        """The cells a closure may read during ``run``: every one, where it calls something
        a local names (``h()`` with ``h = g``, ``K().m()``, ``partial(g)()``) or passes a
        local on to a call; the region's own binding of a cell is not the cell."""
        calls = [c for unit in run for c in find(unit, cst.Call)]
        passed = {a.value.value for c in calls for a in c.args if isinstance(a.value, cst.Name)}
        if not (passed & self.holders or any(_root(c.func) in local for c in calls)):
            return set()
        made = {id(n) for unit in run for n in find(unit, (cst.FunctionDef, cst.Lambda))}
        return {n for k, (_, names) in zip(self.ids, self.reads) if k not in made for n in names}


def _root(func: cst.BaseExpression) -> str | None:
    """The name ``func`` starts from (``K`` of ``K().m``), if it is a name."""
    while isinstance(func, (cst.Attribute, cst.Call, cst.Subscript)):
        func = func.value if not isinstance(func, cst.Call) else func.func
    return func.value if isinstance(func, cst.Name) else None


def closure_reads(fdef: cst.FunctionDef, local_fns: dict[str, LocalFunction]) -> ClosureReads:
    called = {id(lf.node): lf.name for lf in local_fns.values() if not structural_problem(fdef, lf)}
    nested = find(fdef.body, (cst.FunctionDef, cst.Lambda))
    return ClosureReads(
        tuple(
            (called.get(id(n)), frozenset(name_sets(n.body).reads.keys() - scope_locals(n)))
            for n in nested
        ),
        frozenset(
            [n.name.value for n in find(fdef.body, cst.FunctionDef)]
            + [
                t.target.value
                for a in find(fdef.body, cst.Assign)
                if isinstance(a.value, cst.Lambda)
                for t in a.targets
                if isinstance(t.target, cst.Name)
            ]
        ),
        tuple(id(n) for n in nested),
    )


def defaults(node: Function) -> list[cst.BaseExpression]:
    """Default values of the parameters: evaluated where the function is defined."""
    params = node.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    return [p.default for p in every if p.default is not None]


# -- judged with the analysis checker (see analysis._Checker) -----------------------------------


def inlinable(checker: Any, lf: LocalFunction) -> bool:
    """Whether calls of ``lf`` may be traced: see the module doc (memoised on the checker)."""
    memo = checker.inline_memo
    if lf.name not in memo:
        memo[lf.name] = False  # a cycle, if one slipped past the use rule, never inlines
        memo[lf.name] = _inlinable(checker, lf)
    return memo[lf.name]


def _inlinable(checker: Any, lf: LocalFunction) -> bool:
    from astcompile.frontend.analysis import Verdict

    if structural_problem(checker.fdef, lf) or _default_problems(checker, lf):
        return False
    inner = checker.scope(lf.node)
    if isinstance(lf.node, cst.Lambda):
        return not inner.expression_problems(lf.node.body)
    units = block_units(lf.node.body)
    return all(inner.verdict(u, allow_jumps=True) is not Verdict.EAGER for u in units)


def _default_problems(checker: Any, lf: LocalFunction) -> list[Problem]:
    return [p for d in defaults(lf.node) for p in checker.expression_problems(d)]


def problems(checker: Any, lf: LocalFunction) -> list[Problem]:
    """The breaks to report for a local lambda that cannot be inlined."""
    kind = "function" if isinstance(lf.node, cst.FunctionDef) else "lambda"
    why = structural_problem(checker.fdef, lf)
    if why:
        return [Problem(R.NESTED_DEF, lf.node, {"kind": kind, "name": lf.name, "why": why})]
    found = _default_problems(checker, lf)
    if isinstance(lf.node, cst.Lambda):
        found += checker.scope(lf.node).expression_problems(lf.node.body)
    return found


def lambda_problems(checker: Any, lam: cst.Lambda) -> list[Problem]:
    """A bound local lambda is judged like a local def; any other lambda is a break."""
    local = next((f for f in checker.local_fns.values() if f.node is lam), None)
    if local is None:
        fields = {"kind": "lambda", "name": "<lambda>", "why": "is created at run time"}
        return [Problem(R.NESTED_DEF, lam, fields)]
    return [] if inlinable(checker, local) else problems(checker, local)


def report(checker: Any, lf: LocalFunction) -> None:
    """Report why a local ``def`` runs in Python: at its ``def``, or its body's own breaks."""
    for problem in problems(checker, lf):
        checker.add(problem)
    if not structural_problem(checker.fdef, lf):
        checker.scope(lf.node).block(lf.node.body)
