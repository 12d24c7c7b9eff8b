"""Step 3a: cut each block into runs of graph-able statements and give each run its signature.

A run becomes a region: a function of its live-in variables returning its live-out ones. Python
semantics must survive the cut, so a run may only read, as parameters, variables that are surely
bound when it starts, and may only return variables it surely binds (or that were surely bound
before). Statements that break these rules are *demoted*: they stay in Python, and for an ``if``
its branches become regions of their own. Demotion is silent: it is a property of the variables,
not a graph break the user can fix.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from astcompile.frontend.liveness import Live, Liveness, must_assign, surely_bound
from astcompile.frontend.local_names import (
    block_units,
    function_locals,
    name_sets,
    parameter_names,
    small_statements,
    target_sets,
)
from astcompile.frontend.loop_plan import Spec, StructuredPlanner
from astcompile.frontend.loopcheck import ends_in_return, own_jumps
from astcompile.frontend.nested import closure_reads, local_functions
from astcompile.frontend.spec import RET
from astcompile.frontend.walk import find


@dataclass(frozen=True)
class Run:
    """One planned region: consecutive units of one block and the variables crossing its edges."""

    name: str
    units: tuple[cst.CSTNode, ...]
    params: tuple[str, ...]
    outputs: tuple[str, ...]
    globals_read: tuple[str, ...]
    returns: bool  # ends with the function's return: the caller returns __ac_ret after it
    structured: tuple[Spec, ...] = ()  # the run's loops (and ifs in them) lowered to calls
    #: outputs a loop of the run may leave unbound: the caller deletes those that come back
    #: UNBOUND (see LoopSpec.unbound)
    unbound: tuple[str, ...] = ()


@dataclass
class Plan:
    """All runs of a function, by block, in source order."""

    runs: dict[cst.BaseSuite, list[Run]] = field(default_factory=dict)
    in_region: set[cst.CSTNode] = field(default_factory=set)
    order: list[Run] = field(default_factory=list)
    #: why each graph-able loop left in Python is, by its line (for ``explain``)
    loop_reasons: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Entry:
    """What holds when a block starts: names surely bound, names maybe bound (loops included,
    an over-approximation), and names that must survive an exception (inside ``try``)."""

    defined: Live
    possible: Live
    guarded: Live

    def at(self, units: list[cst.CSTNode], index: int) -> _Entry:
        """The state before ``units[index]`` of a block this entry starts."""
        defined = surely_bound(self.defined, units[:index])
        possible = self.possible | name_sets(*units[:index]).writes.keys()
        return _Entry(defined, frozenset(possible), self.guarded)

    def inside(
        self, units: list[cst.CSTNode], index: int, bound: Live, possible: Live, guarded: Live
    ) -> _Entry:
        """The state entering a block nested in ``units[index]``."""
        defined = surely_bound(self.defined, units[:index]) | bound
        return _Entry(defined, possible | bound, self.guarded | guarded)


def plan_regions(
    fdef: cst.FunctionDef,
    eligible: set[cst.CSTNode],
    fn: Callable | None,
    line_of: dict[cst.CSTNode, int] | None = None,
    last_line_of: dict[cst.CSTNode, int] | None = None,
) -> Plan:
    """Plan the regions of ``fdef``; ``eligible`` holds the units analysis found graph-able;
    ``line_of`` (and ``last_line_of``) give statements' first (and last) lines, needed to
    lower graph-able loops."""
    planner = _Planner(fdef, eligible, fn, line_of or {}, last_line_of or {})
    params = frozenset(parameter_names(fdef))
    planner.block(fdef.body, _Entry(params, params, frozenset()))
    planner.plan.loop_reasons = {
        (line_of or {})[node]: why
        for node, why in planner.structured.why.items()
        if isinstance(node, (cst.For, cst.While)) and node not in planner.plan.in_region
    }
    return planner.plan


def _has_nested_return(unit: cst.CSTNode) -> bool:
    """A return of the function inside a compound unit (a local function's own do not count)."""
    if small_statements(unit) or isinstance(unit, cst.FunctionDef):
        return False
    nested = {id(r) for d in find(unit, cst.FunctionDef) for r in find(d, cst.Return)}
    return any(id(r) not in nested for r in find(unit, cst.Return))


_ATOMS = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis)


def _is_atom(expr: cst.BaseExpression | None) -> bool:
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(_is_atom(e.value) for e in expr.elements)
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.expression, (cst.Integer, cst.Float))
    return expr is None or isinstance(expr, (*_ATOMS, cst.ConcatenatedString))


def _is_trivial(unit: cst.CSTNode) -> bool:
    """``pass``, docstrings, ``s = 0.0``, ``return y``: a region of only these computes nothing."""
    smalls = small_statements(unit)
    return bool(smalls) and all(_trivial_small(small) for small in smalls)


def _trivial_small(small: cst.BaseSmallStatement) -> bool:
    if isinstance(small, (cst.Pass, cst.Expr, cst.Return)):
        return _is_atom(getattr(small, "value", None))
    if isinstance(small, cst.Assign):
        return _is_atom(small.value) and all(_is_atom(t.target) for t in small.targets)
    return False


class _Planner:
    """Walks the blocks of one function in source order, so regions are numbered as read."""

    def __init__(
        self,
        fdef: cst.FunctionDef,
        eligible: set[cst.CSTNode],
        fn: Callable | None,
        line_of: dict[cst.CSTNode, int],
        last_line_of: dict[cst.CSTNode, int],
    ):
        self.fdef = fdef
        self.eligible = eligible
        self.liveness = Liveness(fdef)
        self.structured = StructuredPlanner(self.liveness, line_of, last_line_of)
        self.specs: dict[cst.CSTNode, list[Spec]] = {}
        self.locals = function_locals(fdef)
        self.signature = {name: i for i, name in enumerate(parameter_names(fdef))}
        self.local_fns = local_functions(fdef)
        self.freevars = frozenset(fn.__code__.co_freevars) if fn is not None else frozenset()
        self.closures = closure_reads(fdef, self.local_fns)
        self.fn_globals = getattr(fn, "__globals__", None)
        self.plan = Plan()

    def block(self, block: cst.BaseSuite, entry: _Entry) -> None:
        """Plan one block, then the blocks nested in its statements that stay in Python."""
        units = block_units(block)
        demoted: set[cst.CSTNode] = set()
        while True:
            spans = self._split(units, demoted, entry.guarded)
            extra = set()
            for start, stop in spans:
                extra |= self._demotions(units[start:stop], entry.at(units, start))
            if not extra:
                break
            demoted |= extra
        starts = dict(spans)
        index = 0
        while index < len(units):
            if index in starts:
                self._add_run(block, units[index : starts[index]], entry.at(units, index).defined)
                index = starts[index]
                continue
            inner = entry.at(units, index + 1)
            for child, bound, guarded in _child_blocks(units[index], self.liveness):
                self.block(child, entry.inside(units, index, bound, inner.possible, guarded))
            index += 1

    def _split(
        self, units: list[cst.CSTNode], demoted: set[cst.CSTNode], guarded: Live
    ) -> list[tuple[int, int]]:
        """Maximal runs of eligible units.

        A top-level return ends a run. Inside ``try``, so does a statement that assigns a name
        a handler (or code after the ``try``) reads: if a later statement raised inside the same
        region, that assignment would be lost.
        """
        spans, start = [], None
        for index, unit in enumerate(units):
            ok = unit in self.eligible and unit not in demoted and not self._docstring(unit)
            ok = ok and not own_jumps(unit)  # break/continue of a loop that stays in Python
            if ok and start is None:
                start = index
            if not ok and start is not None:
                spans.append((start, index))
                start = None
            if ok and (ends_in_return(unit) or name_sets(unit).writes.keys() & guarded):
                spans.append((start, index + 1))
                start = None
        if start is not None:
            spans.append((start, len(units)))
        return [(a, b) for a, b in spans if not all(_is_trivial(u) for u in units[a:b])]

    def _docstring(self, unit: cst.CSTNode) -> bool:
        """The function's docstring: a string literal first (``x.sort()`` first is code)."""
        body = self.fdef.body
        first = body.body[0] if isinstance(body, cst.IndentedBlock) and body.body else None
        smalls = small_statements(unit)
        if unit is not first or len(smalls) != 1 or not isinstance(smalls[0], cst.Expr):
            return False
        return isinstance(smalls[0].value, (cst.SimpleString, cst.ConcatenatedString))

    def _demotions(self, run: list[cst.CSTNode], entry: _Entry) -> set[cst.CSTNode]:
        """Units that must stay in Python so the run's parameters and outputs are surely bound.

        A name read in the run that is not surely bound before it is the hazard: as a parameter
        it could be unbound at the call; left out, the region would not see its value.
        """
        demote = {u for u in run if _has_nested_return(u) and not ends_in_return(run[-1])}
        demote |= {
            u for u in run if not small_statements(u) and name_sets(u).writes.keys() & entry.guarded
        }
        bound = entry.defined
        maybe_unbound: set[str] = set()
        for position, unit in enumerate(run):
            if isinstance(unit, (cst.For, cst.While)):
                specs = (
                    self.structured.loop(unit, bound, top=True) if self.structured.line_of else None
                )
                if specs is None:
                    demote.add(unit)  # stays a Python loop; its body is planned as regions
                elif specs[0].ret and not _returns_after_loop(unit, run[position + 1 :]):
                    demote.add(unit)
                    self.structured.why.setdefault(unit, _RETURN_AFTER)
                else:
                    self.specs[unit] = specs
            if maybe_unbound & name_sets(unit).reads.keys():
                demote.add(unit)  # Python reads it from the frame: unbound raises there
            for name in (self.liveness.live_in([unit]) & self.locals) - bound:
                writers = [u for u in run[:position] if name in name_sets(u).writes]
                if not writers:
                    demote.add(unit)  # maybe unbound: Python code reads it, or fails, as before
                elif name in entry.possible:
                    demote.update(writers)  # the region would not see the earlier binding
            bound = surely_bound(bound, [unit])
            unbound = _unbound_after(self.specs.get(unit, ())) if unit not in demote else ()
            maybe_unbound = (maybe_unbound - must_assign([unit])) | set(unbound)
            bound |= frozenset(unbound)
        live_out, inside = self.liveness.after[run[-1]], self.closures.within(run, self.locals)
        demote |= self._local_function_demotions(run, live_out)
        for name in name_sets(*run).writes:
            if (self._read_after(name, live_out) and name not in bound) or name in inside:
                demote.update(u for u in run if name in name_sets(u).writes)
        return demote

    def _read_after(self, name: str, live_out: Live) -> bool:
        """Whether a local the run writes may be read after it, also through a closure's cell."""
        return name in self.locals and (name in live_out or name in self.closures.after(live_out))

    def _local_function_demotions(self, run: list[cst.CSTNode], live_out: Live) -> set:
        """A local function never crosses a region's edge (see frontend/nested.py): a
        definition whose name is live after the run stays in Python, and so does a unit that
        reads a local function defined outside the run."""
        demote = set()
        for name, local in self.local_fns.items():
            inside = [u for u in run if u is local.unit or u in local.ancestors]
            if inside and name in live_out:
                demote.update(inside)
            if not inside:
                demote.update(u for u in run if name in name_sets(u).reads)
        return demote

    def _add_run(self, block: cst.BaseSuite, units: list[cst.CSTNode], defined: Live) -> None:
        sets = name_sets(*units)
        live_in = self.liveness.live_in(units) & self.locals
        live_out = self.liveness.after[units[-1]]
        surely = must_assign(units)
        outputs = [n for n in sets.writes if self._read_after(n, live_out)]
        params = [n for n in sets.reads if n in live_in and n in defined]  # the rest: never bound
        params += [n for n in outputs if n not in surely and n in defined and n not in params]
        # the function's parameters first, in its order: a region that is the whole function is
        # then called with the caller's arguments as they are (CompiledFunction's shortcut)
        params.sort(key=lambda n: self.signature.get(n, len(self.signature)))
        returns = ends_in_return(units[-1])
        unbound = [n for u in units for n in _unbound_after(self.specs.get(u, ()))]
        run = Run(
            name=f"__ac_region_{len(self.plan.order)}",
            units=tuple(units),
            params=tuple(params),
            outputs=(RET,) if returns else tuple(outputs),
            globals_read=tuple(n for n in sets.reads if self._is_global(n)),
            returns=returns,
            structured=tuple(s for u in units for s in self.specs.get(u, ())),
            unbound=tuple(n for n in outputs if n in unbound),
        )
        self.plan.runs.setdefault(block, []).append(run)
        self.plan.in_region.update(units)
        self.plan.order.append(run)

    def _is_global(self, name: str) -> bool:
        if name in self.locals or name in self.freevars:
            return False
        if self.fn_globals is not None and name in self.fn_globals:
            return True
        return not hasattr(builtins, name)


_RETURN_AFTER = (
    "its `return` needs the statements after the loop to be simple ones ending in the "
    "function's `return` of as many values"
)


def _returns_after_loop(loop: cst.For | cst.While, rest: list[cst.CSTNode]) -> bool:
    """Whether the run can return a loop's ``return e`` after the loop (frontend/lowering.py
    evaluates ``e`` there, as one branch of an IF whose other branch is the rest of the run):
    the rest must be simple statements ending in the function's return, with as many values
    as ``e`` (the values of an IF are its results, one by one). ``while True:`` without a
    ``break`` needs no rest: it leaves only by its return."""
    if not rest and ends_in_return(loop):
        return True
    if not rest or not all(small_statements(u) for u in rest) or not ends_in_return(rest[-1]):
        return False
    inner = own_jumps(loop.body, (cst.Return,))
    final = next(s for s in small_statements(rest[-1]) if isinstance(s, cst.Return))
    return all(_arity(r.value) == _arity(final.value) for r in inner)


def _arity(value: cst.BaseExpression | None) -> int:
    if isinstance(value, cst.Tuple):
        starred = any(isinstance(e, cst.StarredElement) for e in value.elements)
        return -1 if starred else len(value.elements)
    return 1


def _unbound_after(specs: list[Spec] | tuple[Spec, ...]) -> tuple[str, ...]:
    """Names the planned loop ``specs[0]`` may leave unbound (LoopSpec.unbound)."""
    return getattr(specs[0], "unbound", ()) if specs else ()


def _child_blocks(unit: cst.CSTNode, liveness: Liveness) -> list[tuple[cst.BaseSuite, Live, Live]]:
    """Nested blocks of a statement that stays in Python: (block, names it surely binds on
    entry, names a ``try`` handler or later code may read if the block raises)."""
    none: Live = frozenset()
    if isinstance(unit, cst.If):
        return _if_blocks(unit, none)
    if isinstance(unit, (cst.For, cst.While)):
        target = frozenset(target_sets(unit.target).writes) if isinstance(unit, cst.For) else none
        return [(unit.body, target, none)] + (
            [(unit.orelse.body, none, none)] if unit.orelse else []
        )
    if isinstance(unit, cst.With):
        return [(unit.body, frozenset(name_sets(*unit.items).writes), none)]
    if isinstance(unit, (cst.Try, cst.TryStar)):
        return _try_blocks(unit, liveness)
    if isinstance(unit, cst.Match):  # a case's captures are bound in its body
        return [(case.body, frozenset(name_sets(case.pattern).writes), none) for case in unit.cases]
    return []


def _if_blocks(unit: cst.If, tested: Live) -> list[tuple[cst.BaseSuite, Live, Live]]:
    """Branches of an ``if``/``elif`` chain; walrus targets of the tests run so far are bound."""
    none: Live = frozenset()
    tested = tested | frozenset(name_sets(unit.test).writes)
    blocks = [(unit.body, tested, none)]
    if isinstance(unit.orelse, cst.If):
        blocks += _if_blocks(unit.orelse, tested)
    elif unit.orelse is not None:
        blocks.append((unit.orelse.body, tested, none))
    return blocks


def _try_blocks(
    unit: cst.Try | cst.TryStar, liveness: Liveness
) -> list[tuple[cst.BaseSuite, Live, Live]]:
    none: Live = frozenset()
    handlers = [h.body for h in unit.handlers] + ([unit.finalbody.body] if unit.finalbody else [])
    guarded = liveness.after.get(unit, none) | name_sets(*handlers).reads.keys()
    blocks = [(unit.body, none, frozenset(guarded))]
    for handler in unit.handlers:
        name = frozenset(target_sets(handler.name.name).writes) if handler.name else none
        blocks.append((handler.body, name, none))
    if unit.orelse:
        blocks.append((unit.orelse.body, must_assign(block_units(unit.body)), none))
    if unit.finalbody:
        blocks.append((unit.finalbody.body, none, none))
    return blocks
