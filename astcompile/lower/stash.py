"""Element values kept in an output's memory between two phases instead of computed twice.

Row softmax ``e = np.exp(x - m); e / e.sum(...)`` needs ``e`` in the sum phase and again in the
phase that writes the output. Computed twice, the kernel calls ``expf`` twice per element. The
output has one element per point of the domain, so the sum phase stores ``e`` there, and the
last phase reads it back and overwrites it with ``e / s``: half the ``expf`` calls, for one more
store and load of memory the last phase touches anyway.

A value is kept when (a) the phase writing output ``o`` needs it and an earlier phase computes
it, (b) it has ``o``'s dtype (the round trip through memory is exact), (c) ``o`` covers the
whole domain (every point of the loop nest its own element) and is not written in place over
an input the kernel still reads, and (d) what the reload saves includes a math call: a reload
of ``x - m`` would cost more memory traffic than the subtraction it saves. Phases that carry a
reduction end at a barrier when threads share a row, so the reload never races the store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from astcompile.ir.graph import Node
from astcompile.lower.plan import KernelPlan
from astcompile.passes.schedule import member_map


@dataclass(frozen=True)
class Stash:
    """``value`` is stored into ``out`` in phase ``phase`` and read back in ``out``'s phase."""

    value: Node
    out: Node
    phase: int


def plan_stashes(
    plan: KernelPlan,
    needed: Callable[[int], list[Node]],
    costly: Callable[[Node], bool],
    aliased: frozenset[int],
) -> dict[int, Stash]:
    """Value id -> its stash. ``needed(k)``: the element values phase ``k`` computes;
    ``costly(n)``: whether computing ``n`` itself calls a math function."""
    stashes: dict[int, Stash] = {}
    for out in plan.kernel.outputs:
        last = plan.avail[out.id]
        if last == 0 or out.id in aliased or not _covers_domain(plan, out):
            continue
        late = {n.id: n for n in needed(last)}
        earlier = {n.id: k for k in range(last) for n in needed(k)}  # the latest phase wins
        shared = [n for i, n in late.items() if i in earlier and i not in stashes]
        shared = [n for n in shared if n.dtype == out.dtype]
        best = max(shared, key=lambda n: (len(_cone(n, late)), n.id), default=None)
        if best is not None and any(costly(n) for n in _cone(best, late)):
            stashes[best.id] = Stash(best, out, earlier[best.id])
    return stashes


def _covers_domain(plan: KernelPlan, out: Node) -> bool:
    axes = [a for a in member_map(out, plan.kernel) or () if a is not None]
    return sorted(axes) == list(range(len(plan.kernel.domain)))


def _cone(node: Node, members: dict[int, Node]) -> list[Node]:
    """``node`` and the values among ``members`` it is computed from."""
    seen: dict[int, Node] = {}
    stack = [node]
    while stack:
        n = stack.pop()
        if n.id in seen or n.id not in members:
            continue
        seen[n.id] = n
        stack.extend(n.inputs)
    return list(seen.values())
