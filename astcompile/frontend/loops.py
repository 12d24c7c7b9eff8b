"""Step 3c: plan graph-able ``for`` loops (and the ``if``s inside them) as structured calls.

A loop in a region is traced once as a LOOP node (see ``astcompile/graph/loops.py``), so its
body becomes a function of the induction variable and the *loop-carried* variables: the names
the body assigns that are read before being assigned in the body (the next iteration reads
them) or that are live after the loop. Python semantics must survive the cut, so a loop whose
carried names are not all surely bound before it, or whose target is read after it, stays in
Python (its body still becomes regions). The same holds for an ``if`` inside a loop body: its
branches become functions of the names they assign that are live afterwards.

Planning works on libcst (liveness lives there); the lowering itself is done on the ``ast`` of
the region body right before it is compiled (``frontend/lowering.py``), where new nodes can take
the line numbers of the statement they replace, so tracebacks keep pointing at user lines.
"""

from __future__ import annotations

import libcst as cst

from astcompile.frontend.liveness import Live, Liveness, surely_bound
from astcompile.frontend.names import block_units, child_blocks, name_sets, target_sets
from astcompile.frontend.spec import BranchSpec, LoopSpec, Spec




class StructuredPlanner:
    """Decides whether a graph-able ``for`` unit can be lowered, and how."""

    def __init__(self, liveness: Liveness, line_of: "dict[cst.CSTNode, int]") -> None:
        self.liveness = liveness
        self.line_of = line_of

    def loop(self, node: cst.For, bound: Live) -> list[Spec] | None:
        """Specs for ``node`` and everything nested in it; None when it must stay in Python."""
        if node not in self.line_of:
            return None  # kept in Python: it failed to trace as a loop before
        target = next(iter(target_sets(node.target).writes))
        after = self.liveness.after.get(node, frozenset())
        if target in after:
            return None
        units = block_units(node.body)
        carried = self._state(units, after)
        if not carried <= bound:
            return None
        inner = self._block(units, bound | {target})
        if inner is None:
            return None
        return [LoopSpec(self.line_of[node], target, tuple(sorted(carried))), *inner]

    def _state(self, units: list[cst.CSTNode], after: Live) -> frozenset[str]:
        assigned = frozenset(name_sets(*units).writes)
        read_first = self.liveness.live_in(units)
        return assigned & (after | read_first)

    def _block(self, units: list[cst.CSTNode], bound: Live) -> list[Spec] | None:
        specs: list[Spec] = []
        for index, unit in enumerate(units):
            here = surely_bound(bound, units[:index])
            if isinstance(unit, cst.For):
                found = self.loop(unit, here)
            elif isinstance(unit, cst.If):
                found = self._branch(unit, here)
            else:
                continue
            if found is None:
                return None
            specs += found
        return specs

    def _branch(self, node: cst.If, bound: Live) -> list[Spec] | None:
        after = self.liveness.after.get(node, frozenset())
        blocks = child_blocks(node)
        names: frozenset[str] = frozenset()
        for block in blocks:
            names |= self._state(block_units(block), after)
        if isinstance(node.orelse, cst.If):
            names |= self._state([node.orelse], after)
        if not names <= bound:
            return None
        specs: list[Spec] = [BranchSpec(self.line_of[node], tuple(sorted(names)))]
        for block in [node.body] + ([node.orelse.body] if isinstance(node.orelse, cst.Else) else []):
            inner = self._block(block_units(block), bound)
            if inner is None:
                return None
            specs += inner
        if isinstance(node.orelse, cst.If):
            inner = self._branch(node.orelse, bound)
            if inner is None:
                return None
            specs += inner
        return specs
