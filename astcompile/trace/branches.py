"""``if`` on a value known only at run time, traced: both branches, one IF node.

``__ac_if(test, then_fn, else_fn, values)`` (trace/loops.py's ``ac_if``) comes here when the
test is a run-time value: each branch is traced from the same values, each variable gets one
kind in both (trace/carried.py), and the IF's RESULT nodes pick the branch's values. The
lengths of the lists a loop is appending to are values of the IF too
(trace/growing_lists.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir.graph import Graph, IfAttr
from astcompile.ir.ops import Op
from astcompile.trace import carried as CK
from astcompile.trace import control as C
from astcompile.trace import escapes, growing_lists, optionals
from astcompile.trace import subgraphs as SG
from astcompile.trace.context import current
from astcompile.trace.unread_values import keep_in_body


def trace_if(test: Any, then_fn: Callable, else_fn: Callable, values: tuple) -> tuple:
    """``values`` after ``then_fn`` or ``else_fn``, as the RESULTs of one IF node on ``test``."""
    ctx = current()
    cond = C.truth_node(test)
    grown = growing_lists.active(ctx)  # their lengths are values of the IF too
    values = (*values, *(sl.growth.size for sl in grown))
    branches = []
    for fn, outcome in ((then_fn, True), (else_fn, False)):
        with escapes.unchanged(fn, "branch"), optionals.assuming(cond, outcome):
            branches.append(_trace_branch(ctx, fn, values, grown))
    kinds = CK.same_kinds(branches[0][2], branches[1][2])
    # a value both branches leave as it was is no result of the IF: it stays what it is
    keep = [k for k, (a, b) in enumerate(zip(branches[0][0], branches[1][0])) if a is not b]
    keep = keep or list(range(min(1, len(kinds))))
    graphs, owned = [], set()
    for outs, effects, _, first in branches:
        nodes = SG.flat([outs[k] for k in keep], [kinds[k] for k in keep])
        keep_in_body(ctx, effects, nodes)  # unread scalars computed, for their flags
        graph = Graph("branch", [], nodes, effects)
        owned |= {n.id for n in graph.nodes() if n.id >= first}
        graphs.append(graph)
    captured = {n.id: n for g in graphs for n in SG.captured(g, owned)}
    captured_nodes = [captured[k] for k in sorted(captured)]
    node = ctx.node(Op.IF, (cond, *captured_nodes), np.dtype(bool), (), IfAttr(*graphs))
    ctx.add_effect(node)
    values = list(branches[0][0])
    for k, value in zip(keep, SG.results(ctx, node, [kinds[k] for k in keep])):
        values[k] = value
    if not grown:
        return tuple(values)
    for sl, size in zip(grown, values[-len(grown) :]):
        sl.growth.size = size
    return tuple(values[: -len(grown)])


def _trace_branch(ctx: Any, fn: Callable, values: tuple, grown: list) -> tuple:
    """One branch traced from ``values``: the variables', then the growing lists' lengths."""
    first = SG.next_id()
    n = len(values) - len(grown)
    for sl, size in zip(grown, values[n:]):
        sl.growth.size = size
    ctx.effect_frames.append([])
    try:
        outs = fn(*values[:n])
        if grown:
            outs = (*outs, *(sl.growth.size for sl in grown))
    finally:
        effects = ctx.effect_frames.pop()
    return outs, effects, [CK.kind_of(v) for v in outs], first
