"""Backward liveness over a whole function body, loops and ``try`` included.

A region must return every variable it assigns that code after it may read: later statements,
later iterations of an enclosing loop, an exception handler. Under-approximating drops a value
(wrong results); over-approximating only returns a value nobody reads, so every rule below errs
on the side of "live".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from astcompile.frontend.local_names import block_units, name_sets, small_statements, target_sets

Live = frozenset[str]
EMPTY: Live = frozenset()


@dataclass(frozen=True)
class _Jumps:
    """Where control can leave a statement other than falling through: what is live there."""

    brk: Live = EMPTY
    cont: Live = EMPTY
    handler: Live = EMPTY


class Liveness:
    """``after[unit]``: the names live right after each statement unit of the function."""

    def __init__(self, fdef: cst.FunctionDef) -> None:
        self.after: dict[cst.CSTNode, Live] = {}
        self._record = True
        self._block(block_units(fdef.body), EMPTY, _Jumps())
        self._record = False

    def live_in(self, units: list[cst.CSTNode], out: Live = EMPTY) -> Live:
        """Names read by ``units`` before being written, given ``out`` live after them."""
        return self._block(units, out, _Jumps())

    def _block(self, units: list[cst.CSTNode], out: Live, jumps: _Jumps) -> Live:
        live = out
        for unit in reversed(units):
            if self._record:
                self.after[unit] = live
            live = frozenset(_TRANSFER.get(type(unit), Liveness._other)(self, unit, live, jumps))
        return live

    def _simple(self, unit: cst.CSTNode, out: Live, jumps: _Jumps) -> Live:
        live = out
        for small in reversed(small_statements(unit)):
            sets = name_sets(small)
            if isinstance(small, (cst.Return, cst.Raise)):
                live = frozenset(sets.reads)
            elif isinstance(small, cst.Break):
                live = jumps.brk
            elif isinstance(small, cst.Continue):
                live = jumps.cont
            else:
                live = (live - sets.writes.keys()) | sets.reads.keys()
            live |= jumps.handler
        return live

    def _if(self, node: cst.If, out: Live, jumps: _Jumps) -> Live:
        body = self._block(block_units(node.body), out, jumps)
        if isinstance(node.orelse, cst.If):
            other = self._if(node.orelse, out, jumps)
        elif node.orelse is not None:
            other = self._block(block_units(node.orelse.body), out, jumps)
        else:
            other = out
        return body | other | name_sets(node.test).reads.keys()

    def _orelse(self, node: cst.For | cst.While, out: Live, jumps: _Jumps) -> Live:
        return self._block(block_units(node.orelse.body), out, jumps) if node.orelse else out

    def _for(self, node: cst.For, out: Live, jumps: _Jumps) -> Live:
        target = target_sets(node.target)
        exit_live = self._orelse(node, out, jumps)
        head = exit_live
        while True:  # grows monotonically, so this reaches a fixpoint
            inner = _Jumps(out, head, jumps.handler)
            body = self._block(block_units(node.body), head, inner)
            new = exit_live | (body - target.writes.keys()) | target.reads.keys()
            if new == head:
                return head | name_sets(node.iter).reads.keys()
            head = new

    def _while(self, node: cst.While, out: Live, jumps: _Jumps) -> Live:
        test = frozenset(name_sets(node.test).reads)
        head = test | self._orelse(node, out, jumps)
        while True:
            body = self._block(block_units(node.body), head, _Jumps(out, head, jumps.handler))
            new = head | body
            if new == head:
                return head
            head = new

    def _with(self, node: cst.With, out: Live, jumps: _Jumps) -> Live:
        items = name_sets(*node.items)
        body = self._block(block_units(node.body), out, jumps)
        return (body - items.writes.keys()) | items.reads.keys()

    def _try(self, node: cst.Try | cst.TryStar, out: Live, jumps: _Jumps) -> Live:
        final = out
        if node.finalbody:
            final = self._block(block_units(node.finalbody.body), out, jumps)
        handlers: Live = EMPTY
        for handler in node.handlers:
            live = self._block(block_units(handler.body), final, jumps)
            if handler.name:
                live -= target_sets(handler.name.name).writes.keys()
            handlers |= live | name_sets(handler.type).reads.keys()
        orelse = self._block(block_units(node.orelse.body), final, jumps) if node.orelse else final
        inner = _Jumps(jumps.brk, jumps.cont, jumps.handler | handlers | final)
        return self._block(block_units(node.body), orelse, inner) | handlers

    def _match(self, node: cst.Match, out: Live, jumps: _Jumps) -> Live:
        """A case binds its captures, then tests its guard, then runs its body."""
        live = out | name_sets(node.subject).reads.keys()
        for case in node.cases:
            pattern, guard = name_sets(case.pattern), name_sets(case.guard)
            body = self._block(block_units(case.body), out, jumps) - guard.writes.keys()
            live |= pattern.reads.keys() | ((body | guard.reads.keys()) - pattern.writes.keys())
        return live

    def _other(self, unit: cst.CSTNode, out: Live, jumps: _Jumps) -> Live:
        sets = name_sets(unit)
        return (out - sets.writes.keys()) | sets.reads.keys() | jumps.handler


_TRANSFER: dict[type, Callable[..., Live]] = {
    cst.SimpleStatementLine: Liveness._simple,
    cst.SimpleStatementSuite: Liveness._simple,
    cst.If: Liveness._if,
    cst.For: Liveness._for,
    cst.While: Liveness._while,
    cst.With: Liveness._with,
    cst.Try: Liveness._try,
    cst.TryStar: Liveness._try,
    cst.Match: Liveness._match,
}


def surely_bound(defined: Live, units: list[cst.CSTNode]) -> Live:
    """Names surely bound after ``units`` given ``defined`` before them (``del`` unbinds)."""
    bound = set(defined)
    for unit in units:
        bound -= name_sets(unit).deletes
        bound |= _must_unit(unit)
    return frozenset(bound)


def must_assign(units: list[cst.CSTNode]) -> Live:
    """Names certainly bound after ``units`` run to completion (an under-approximation)."""
    bound: set[str] = set()
    for unit in units:
        bound |= _must_unit(unit)
    return frozenset(bound)


def _must_unit(unit: cst.CSTNode) -> Live:
    if isinstance(unit, cst.If):
        test = frozenset(name_sets(unit.test).writes)  # a walrus in the test always runs
        if unit.orelse is None:
            return test
        other = unit.orelse if isinstance(unit.orelse, cst.If) else None
        rest = _must_unit(other) if other else must_assign(block_units(unit.orelse.body))
        return test | (must_assign(block_units(unit.body)) & rest)
    if isinstance(unit, cst.Match):
        return _must_match(unit)
    if isinstance(unit, cst.With):
        return frozenset(name_sets(*unit.items).writes) | must_assign(block_units(unit.body))
    if isinstance(unit, cst.Try):
        return _must_try(unit)
    if isinstance(unit, (cst.FunctionDef, cst.ClassDef)):
        return frozenset([unit.name.value])
    if small_statements(unit):
        bound: set[str] = set()
        for small in small_statements(unit):
            sets = name_sets(small)
            if isinstance(small, cst.Del):
                bound -= sets.writes.keys()
            else:
                bound |= sets.writes.keys()
        return frozenset(bound)
    return EMPTY


def _must_match(node: cst.Match) -> Live:
    """Bound by every case, when the last case is a bare ``case _:`` or capture."""
    last = node.cases[-1]
    if not (isinstance(last.pattern, cst.MatchAs) and last.pattern.pattern is None) or last.guard:
        return EMPTY
    bound = must_assign(block_units(last.body))
    for case in node.cases[:-1]:
        bound &= must_assign(block_units(case.body))
    return bound


def _must_try(node: cst.Try) -> Live:
    """Bound after ``try`` when bound by the body and by every handler that falls through."""
    bound = must_assign(block_units(node.body))
    if node.orelse:
        bound |= must_assign(block_units(node.orelse.body))
    for handler in node.handlers:
        last = block_units(handler.body)[-1]
        if not any(isinstance(s, (cst.Raise, cst.Return)) for s in small_statements(last)):
            bound &= must_assign(block_units(handler.body))
    if node.finalbody:
        bound |= must_assign(block_units(node.finalbody.body))
    return bound
