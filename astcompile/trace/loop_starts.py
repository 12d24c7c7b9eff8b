"""Where a traced ``for`` loop starts: whether it runs at all, and the start values of the
variables its first iteration binds.

The frontend starts a variable the loop body binds before reading it, and that code after the
loop reads, as UNBOUND (frontend/loop_plan.py: ``for ...: p = f(x)`` then ``return p``). Such a
loop is traced as if it ran: a scalar starts as a zero of the kind the body gives it, an array
makes trace/loops.py trace the first iteration on its own. Where only the running code knows
whether the loop runs, a CHECK says it does; a call where it does not runs the region's plain
statements (``RunPlain``, ir/checks.py), which leave the variable unbound as Python does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from astcompile.frontend.spec import UNBOUND
from astcompile.ir import shapes as S
from astcompile.ir.checks import RUN_PLAIN
from astcompile.ir.graph import CheckAttr, Node
from astcompile.ir.ops import Op, is_fresh, is_view
from astcompile.trace import carried as CK
from astcompile.trace import handlers
from astcompile.trace import int_bounds as IB
from astcompile.trace import int_sums as sums
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.lists import is_private_store
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymInt


def bound_after(values: tuple) -> None:
    """A traced loop that leaves a variable unbound (it ran zero times; frontend/loop_plan.py
    starts such variables as UNBOUND) runs as plain statements, where a read of it raises."""
    if any(v is UNBOUND for v in values):
        raise TraceBreak(
            TraceReason.LOOP_CARRIED_TYPE,
            "a loop that runs zero times leaves a variable it assigns unbound",
        )


def all_concrete(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values)


def runs(bounds: tuple) -> bool | None:
    """Whether ``range(*bounds)`` is not empty, for constants and sizes (a size guard records
    which); None for bounds known only at run time."""
    start, stop, step = bounds
    if all_concrete(bounds):
        return len(range(start, stop, step)) > 0
    dims = [b.dim if isinstance(b, SymInt) else b for b in (start, stop)]
    if not isinstance(step, int):
        return None
    if not all(isinstance(d, (int, S.SymDim)) for d in dims):
        low, high = (start, stop) if step > 0 else (stop, start)
        least = sums.lowest_difference(high, low, IB.bounds_of)
        return True if least is not None and least >= 1 else None
    low, high = dims if step > 0 else dims[::-1]
    return current().env.is_ge(S.dim_sub(high, low), 1)


def typed_starts(init: tuple, kinds: list, bounds: tuple, bound_nodes: list) -> tuple | None:
    """``init`` with each UNBOUND scalar replaced by a start value of its kind, once the loop
    is known (or checked at run time) to run, so the first iteration binds it before any read
    (None when one is an array, or the run cannot be checked: the caller peels)."""
    starts = [CK.typed_start(k) if v is UNBOUND else v for v, k in zip(init, kinds)]
    if any(s is None for s in starts):
        return None
    known = runs(bounds)
    if known is False:
        bound_after(init)
    if known is not True and not must_run(bound_nodes, bounds[2]):
        return None
    return tuple(starts)


def must_run(bound_nodes: list[Node], step: Any) -> bool:
    """Add a CHECK that ``range(start, stop, step)`` is not empty (False for a step only known
    at run time); a failed check runs the region's plain statements (``RunPlain``)."""
    if not isinstance(step, int) or step == 0 or not nothing_done_yet():
        return False
    start, stop = (B.Operand(n, False, np.zeros((), np.int64)) for n in bound_nodes[:2])
    nonempty = B.elementwise(Op.LT if step > 0 else Op.GT, [start, stop])
    ctx = current()
    attr = CheckAttr(RUN_PLAIN, "the loop ran zero times: a variable it binds stays unbound")
    ctx.add_effect(ctx.node(Op.CHECK, (nonempty,), np.dtype(bool), (), attr))
    return True


@handlers.register
def nothing_done_yet(loops_allowed: bool = False) -> bool:
    """Whether a region traced so far has done nothing a second run would do again (a store,
    or with ``loops_allowed`` a loop or branch holding one): RunPlain runs the region's
    statements from the start."""
    ctx = current()
    return len(ctx.effect_frames) == 1 and _repeatable(ctx.effect_frames[0], loops_allowed)


@handlers.register
def repeatable(effects: list[Node]) -> bool:
    """Whether ``effects`` (a whole region's) hold no store, in loops and branches too."""
    return _repeatable(effects, loops_allowed=True)


def _into_own(store: Node) -> bool:
    """Whether ``store`` writes into an array the region made (``counts = np.zeros(n)``): no
    one else sees it before the region returns, and running the statements again makes a new
    one, so the store is not done twice."""
    return _made_here(store.inputs[0], set())


def _made_here(value: Node, private: set) -> bool:
    """Whether ``value`` is (a view of, or ``value`` after a store into) an array the region
    made (a loop's result too, where it carries one), or one of ``private``."""
    while is_view(value.op) or value.op is Op.STORE:
        value = value.inputs[0]
    if value.op is Op.RESULT and value.inputs[0].op is Op.LOOP:  # what a loop carried out
        loop = value.inputs[0]
        return loop.attr.holders[value.attr] in _own_carried(loop, private)
    return is_fresh(value.op) or value in private


def stores_nothing_seen(effects: list[Node]) -> bool:
    """After a whole run (outside a trace): whether ``effects`` stored into nothing but arrays
    the region made (a typed list's array has reached its list by then)."""
    return _repeatable(effects, loops_allowed=True, private=set())


def _repeatable(effects: list[Node], loops_allowed: bool, private: set | None = None) -> bool:
    private = current().private if private is None else private
    for node in effects:
        if node.op in (Op.CHECK, Op.SIZE_CHECK):
            continue
        if node.op is Op.STORE and (is_private_store(node, private) or _into_own(node)):
            continue
        if not loops_allowed or node.op not in (Op.LOOP, Op.IF):
            return False
        if node.op is Op.LOOP:
            graphs, inner = [node.attr.body], private | _own_carried(node, private)
        else:
            graphs, inner = [node.attr.then_graph, node.attr.else_graph], private
        if not all(_repeatable(g.effects, loops_allowed, inner) for g in graphs):
            return False
    return True


def _own_carried(loop: Node, private: set) -> set[Node]:
    """The holders of ``loop``'s carried arrays that are always an array the region made
    (``acc = np.zeros(n)`` then ``acc += x / y`` in the loop): each starts as one and each
    iteration passes on that holder or another new array, so stores into it are private."""
    attr = loop.attr
    starts = loop.inputs[attr.heads : attr.heads + attr.carried]
    nexts = attr.body.outputs[: attr.carried]
    return {
        holder
        for holder, start, after in zip(attr.holders, starts, nexts)
        if _made_here(start, private) and _made_here(after, private | {holder})
    }
