"""Step 3c: plan graph-able ``for``/``while`` loops (and the ``if``s in them) as structured calls.

A loop in a region is traced once as a LOOP node (see ``trace/loops.py``), so its
body becomes a function of the induction variable and the *loop-carried* variables: the names
the body assigns that are read before being assigned in the body (the next iteration reads
them) or that are live after the loop. Python semantics must survive the cut, so a loop whose
carried names are not all surely bound before it, or whose target is read after it, stays in
Python (its body still becomes regions). The same holds for an ``if`` inside a loop body: its
branches become functions of the names they assign that are live afterwards.

A ``break``/``continue`` becomes flags (see LoopSpec): the ``if`` holding it passes the flags
on, and the statements after that ``if`` run under ``if go:`` (a GuardSpec).

Planning works on libcst (liveness lives there); the lowering itself is done on the ``ast`` of
the region body right before it is compiled (``frontend/lowering.py``), where new nodes can take
the line numbers of the statement they replace, so tracebacks keep pointing at user lines.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from astcompile.frontend.liveness import EMPTY, Live, Liveness, surely_bound
from astcompile.frontend.local_names import block_units, child_blocks, name_sets, target_sets
from astcompile.frontend.loopcheck import own_jumps
from astcompile.frontend.spec import BranchSpec, GuardSpec, LoopSpec, Spec
from astcompile.frontend.walk import find

#: The current loop's ``go`` flag and all its flags (see LoopSpec); ("", {}) without jumps.
_Jump = tuple[str, frozenset[str]]
_EXITS = (
    "it holds a `return` or `raise` that cannot end a native loop (returns, or one raise, per "
    "loop, in a loop not nested in another compiled loop)"
)
_NESTED = " and it is nested in a compiled loop (or its target is not one name)"
_BIND_FIRST = (
    " (it is a `while` loop, nested in a compiled loop, or its body may read it first): "
    "bind it before the loop"
)

#: What ends an iteration early: a ``return`` (or ``raise``) in a loop at the top of a region
#: is a ``break`` that also sets the loop's ``returned`` (``raised``) flag
_JUMPS = (cst.Break, cst.Continue, cst.Return, cst.Raise)


class StructuredPlanner:
    """Decides whether a graph-able ``for``/``while`` unit can be lowered, and how."""

    def __init__(
        self,
        liveness: Liveness,
        line_of: dict[cst.CSTNode, int],
        last_line_of: dict[cst.CSTNode, int] | None = None,
    ) -> None:
        self.liveness = liveness
        self.line_of = line_of
        self.last_line_of = last_line_of or {}
        #: why each loop planned here stays in Python, for ``explain`` (frontend/region_cuts.py)
        self.why: dict[cst.CSTNode, str] = {}
        self.failed: cst.CSTNode | None = None  # the unit a body could not plan
        self.depth = 0  # how many compiled loops hold the unit being planned

    def _stays(self, node: cst.CSTNode, reason: str) -> None:
        self.why.setdefault(node, reason)

    def loop(self, node: cst.For | cst.While, bound: Live, top: bool = False) -> list[Spec] | None:
        """Specs for ``node`` and everything nested in it; None when it must stay in Python.

        A loop at the top of a region (``top``) may leave variables it first assigns (and the
        target) for the code after it: see :meth:`_may_start_unbound`."""
        if node not in self.line_of:
            return None  # kept in Python: it failed to trace as a loop before
        line = self.line_of[node]
        targets = _targets(node)
        after = self.liveness.after.get(node, frozenset())
        target = node.target.value if isinstance(node, cst.For) and _is_name(node.target) else ""
        else_units = block_units(node.orelse.body) if node.orelse else []
        past = after  # where a break goes: past an ``else`` block (the loop's end enters it)
        after = self.liveness.live_in(else_units, after) | after if else_units else after
        returns = own_jumps(node.body, (cst.Return,))
        raises = own_jumps(node.body, (cst.Raise,))
        nested = nested_returns(node)
        if not self._exits_ok(node, top, returns, raises, nested):
            return self._stays(node, _EXITS)
        seen = after  # what the code after the loop reads, but for its returns' values
        for exit_ in returns + raises + nested:  # breaks out; evaluated after the loop
            after = after | frozenset(name_sets(exit_).reads)
        units = block_units(node.body)
        unseen = self._unseen(node, units, seen, after, bound, top and not nested)
        last = f"__ac_last_{line}" if targets & after else ""
        if last and not ((top or target in unseen) and target):
            return self._stays(node, f"its variable is read after it{_NESTED}")
        fresh = targets if isinstance(node, cst.For) else frozenset()
        carried = self._state(units, after, fresh)
        if carried & targets:  # the last step's value would need the body's rebinding too
            return self._stays(node, "its variable is assigned in it and read after it")
        if isinstance(node, cst.While):
            carried |= frozenset(name_sets(*units).writes) & name_sets(node.test).reads.keys()
        unbound = (carried | (targets & after)) - bound - unseen
        if unbound and not self._may_start_unbound(node, units, unbound, top):
            names = ", ".join(f"`{n}`" for n in sorted(unbound))
            return self._stays(node, f"{names} may be unbound when it starts{_BIND_FIRST}")
        jumps = own_jumps(node.body, _JUMPS) + nested
        brk = f"__ac_brk_{line}" if any(not isinstance(j, cst.Continue) for j in jumps) else ""
        go = f"__ac_go_{line}" if jumps else ""
        ret = f"__ac_returned_{line}" if returns or nested else ""
        raised = f"__ac_raised_{line}" if raises else ""
        flags = frozenset(f for f in (brk, go, ret, raised) if f)
        skips = carried & past  # live where a break goes: the branch holding it passes them on
        if else_units and skips - bound:
            return self._stays(node, _unbound_names(skips - bound, "a break past its `else`"))
        self.depth += 1
        inner = self._block(units, bound | targets | flags, (go, flags | (skips & bound)))
        self.depth -= 1
        if inner is None:
            failed = self.failed
            why = self.why.get(failed, "it stays in Python")
            return self._stays(node, f"line {self.line_of.get(failed, '?')} in it: {why}")
        orelse = self._orelse(node, else_units, bound, brk)
        if orelse is None:
            return None
        extra = {n for n in (last, ret, raised) if n}
        state = tuple(sorted(carried | extra)) + ((brk,) if brk else ())
        spec = LoopSpec(line, target, state, brk, go, tuple(sorted(unbound)), last, ret, raised)
        spec = replace(spec, orelse=orelse[0], unseen=tuple(sorted(unseen & (carried | targets))))
        return [spec, *inner, *orelse[1]]

    def _exits_ok(
        self, node: cst.For | cst.While, top: bool, returns: list, raises: list, nested: list
    ) -> bool:
        """A loop at the top of a region may hold returns, or one raise; a loop nested in
        compiled loops one ``return`` (its own or a nested loop's), which the loop around it
        takes as its own (frontend/lowering.py, ``_nested_returns``)."""
        if not (returns or raises or nested):
            return True
        if top:
            return not raises or (len(raises + returns) == 1 and not nested)
        return self.depth > 0 and not raises and len(returns + nested) == 1 and not node.orelse

    def _unseen(
        self, node: cst.CSTNode, units: list, seen: Live, after: Live, bound: Live, old: bool
    ) -> Live:
        """Names the loop may start unbound because only its returns read them after it (each
        return runs after the body bound them): they start as UNSEEN, a zero of their kind
        that nothing reads (trace/loops.py). Loops at the top of a region without nested
        returns keep the rules of UNBOUND (``_may_start_unbound``)."""
        if old or after == seen:
            return frozenset()
        read = seen | (self.liveness.live_in(units, seen) - _targets(node))
        if isinstance(node, cst.While):
            read |= name_sets(node.test).reads.keys()
        return (after - seen - bound) - read

    def _orelse(
        self, node: cst.For | cst.While, units: list[cst.CSTNode], bound: Live, brk: str
    ) -> tuple[BranchSpec | None, list[Spec]] | None:
        """The ``if not brk:`` a ``for``'s ``else`` block runs under after the loop (None
        where no ``break`` can skip it), and the specs of the block. The names it passes on
        must be bound before the loop (the skipped side keeps their values)."""
        if not units:
            return None, []
        after = self.liveness.after.get(node, frozenset())
        names = self._state(units, after)
        if brk and names - bound:
            names_text = ", ".join(f"`{n}`" for n in sorted(names - bound))
            return self._stays(node, f"{names_text} may be unbound when its `else` is skipped")
        inner = self._block(units, bound, ("", frozenset()))
        if inner is None:
            return self._stays(node, "its `else` block stays in Python")
        branch = BranchSpec(self.line_of[node], tuple(sorted(names))) if brk else None
        return branch, inner

    def _may_start_unbound(
        self, node: cst.For | cst.While, units: list[cst.CSTNode], unbound: Live, top: bool
    ) -> bool:
        """Whether the loop may start with ``unbound`` names unbound: a ``for`` at the top of
        a region whose body assigns them before any read (``p`` in ``for ...: p = f(x)`` read
        only after the loop). The tracer peels the first iteration, which binds them; a loop
        that may run zero times leaves them unbound, so it falls back to the plain statements
        (trace/loops.py), and the rewritten function deletes them again (one line per name
        after the region call: the loop must span that many lines).

        A ``while`` at the top of a region may start with names unbound that only its own
        ``return`` reads after it (``mid`` in a binary search's ``return mid``): that return
        runs after the body bound them, so their start value is never seen."""
        if not top:
            return False
        after = self.liveness.after.get(node, frozenset())
        if isinstance(node, cst.While):
            read = after | self.liveness.live_in(units, after) | name_sets(node.test).reads.keys()
            return not unbound & read
        if (unbound - _targets(node)) & self.liveness.live_in(units, after):
            return False  # the body may read it (or leave it) unbound: Python decides
        room = self.last_line_of.get(node, self.line_of[node]) - self.line_of[node]
        return len(unbound) <= room

    def _state(self, units: list[cst.CSTNode], after: Live, fresh: Live = EMPTY) -> Live:
        """The names a step passes to the next (or to the code after the loop): a ``for``'s
        targets (``fresh``) are bound anew by every step, so a body that reads one first and
        then rebinds it (``while n: n //= 10``) does not carry it."""
        assigned = frozenset(name_sets(*units).writes)
        read_first = self.liveness.live_in(units) - fresh
        return assigned & (after | read_first)

    def _block(self, units: list[cst.CSTNode], bound: Live, jump: _Jump) -> list[Spec] | None:
        specs: list[Spec] = []
        for index, unit in enumerate(units):
            here = surely_bound(bound, units[:index])
            if isinstance(unit, (cst.For, cst.While)):
                found = self.loop(unit, here)
                if found is not None and nested_returns(unit, own=True):
                    found = self._returned(unit, units, index, bound, jump, found)
            elif isinstance(unit, cst.If):
                found = self._branch(unit, here, jump)
                jumps = own_jumps(unit, _JUMPS) or returns_in(unit)
                if found is not None and jumps and units[index + 1 :]:
                    found = self._guard(unit, units, index, bound, jump, found)
            else:
                continue
            if found is None:
                self.failed = unit
                return None
            specs += found
        return specs

    def _returned(
        self, unit: cst.CSTNode, units: list, index: int, bound: Live, jump: _Jump, found: list
    ) -> list[Spec] | None:
        """After a loop holding a return, ``if returned: return e`` (frontend/lowering.py)
        passes this loop's flags on, and the rest of the block runs under ``if go:``."""
        if not jump[0]:  # a for-else's block: no loop around it to take the return
            return self._stays(unit, _EXITS)
        found = [*found, BranchSpec(self.line_of[unit], tuple(sorted(jump[1])))]
        if units[index + 1 :]:
            return self._guard(unit, units, index, bound, jump, found)
        return found

    def _guard(
        self,
        unit: cst.If | cst.For | cst.While,
        units: list[cst.CSTNode],
        index: int,
        bound: Live,
        jump: _Jump,
        found: list[Spec],
    ) -> list[Spec] | None:
        """The rest of the block after an ``if`` holding a jump runs under ``if go:``."""
        rest = units[index + 1 :]
        names = self._state(rest, self.liveness.after.get(units[-1], frozenset())) | jump[1]
        if not names <= surely_bound(bound, units[: index + 1]):
            return self._stays(unit, _unbound_names(names - bound, "the code after its jump"))
        return [*found, GuardSpec(self.line_of[unit], jump[0], tuple(sorted(names)))]

    def _branch(
        self, node: cst.If, bound: Live, jump: _Jump, after: Live | None = None
    ) -> list[Spec] | None:
        """``after``: what is live after an ``elif``, which is no statement of its own (it is
        what is live after the ``if`` it belongs to)."""
        if after is None:
            after = self.liveness.after.get(node, frozenset())
        blocks = child_blocks(node)
        names: frozenset[str] = frozenset()
        for block in blocks:
            names |= self._state(block_units(block), after)
        if isinstance(node.orelse, cst.If):
            names |= self._state([node.orelse], after)
        if own_jumps(node, _JUMPS) or returns_in(node):
            names |= jump[1]
        unbound = names - bound
        if unbound and not self._binds_first(node, unbound, after):
            return self._stays(node, _unbound_names(unbound, "its branches"))
        line = self.line_of[node]
        specs: list[Spec] = [BranchSpec(line, tuple(sorted(names)), tuple(sorted(unbound)))]
        for block in [node.body] + (
            [node.orelse.body] if isinstance(node.orelse, cst.Else) else []
        ):
            inner = self._block(block_units(block), bound, jump)
            if inner is None:
                return None
            specs += inner
        if isinstance(node.orelse, cst.If):
            inner = self._branch(node.orelse, bound, jump, after)
            if inner is None:
                return None
            specs += inner
        return specs

    def _binds_first(self, node: cst.If, names: Live, after: Live) -> bool:
        """Whether every branch of ``node`` binds ``names`` before any read of them: then
        they may be unbound before it (what they held there is never seen)."""
        if not names <= surely_bound(frozenset(), [node]):
            return False
        return not names & self.liveness.live_in([node], after)


def returns_in(node: cst.CSTNode) -> list[cst.Return]:
    """The returns of the function in ``node``, nested loops included."""
    inner = {id(r) for d in find(node, cst.FunctionDef) for r in find(d, cst.Return)}
    return [r for r in find(node, cst.Return) if id(r) not in inner]


def nested_returns(loop: cst.For | cst.While, own: bool = False) -> list[cst.Return]:
    """The returns in loops nested in ``loop``'s body (with ``own``, its own too)."""
    mine = {id(r) for r in own_jumps(loop.body, (cst.Return,))}
    return [r for r in returns_in(loop.body) if own or id(r) not in mine]


def _unbound_names(names: frozenset[str], where: str) -> str:
    listed = ", ".join(f"`{n}`" for n in sorted(names))
    return f"{listed}, which {where} may assign, may be unbound before: bind it before the loop"


def _targets(node: cst.For | cst.While) -> frozenset[str]:
    if isinstance(node, cst.While):
        return frozenset()
    return frozenset(target_sets(node.target).writes)


def _is_name(target: cst.BaseExpression) -> bool:
    return isinstance(target, cst.Name)
