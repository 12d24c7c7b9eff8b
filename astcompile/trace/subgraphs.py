"""Sub-graphs of LOOP and IF nodes: which nodes a traced body owns, what it reads of the
graphs around it, the nodes its carried values travel as, and the RESULT nodes it gives back
(shared by trace/loops.py and trace/branches.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from astcompile.ir.graph import Graph, Node, _ids
from astcompile.ir.ops import Op
from astcompile.trace import carried as CK


def next_id() -> int:
    probe = next(_ids)
    return probe + 1


def flat(values: Sequence[Any], kinds: list) -> list[Node]:
    """The nodes carrying ``values`` (a union travels as two, see trace/carried.py)."""
    return [n for v, k in zip(values, kinds) for n in CK.as_nodes(v, k)]


def results(ctx: Any, owner: Node, kinds: list) -> tuple:
    """The values a LOOP or IF node gives back, one RESULT node per carried node."""
    nodes = [
        ctx.node(Op.RESULT, (owner,), dtype, shape, k)
        for k, (dtype, shape) in enumerate(CK.layout(kinds))
    ]
    return tuple(CK.results(nodes, kinds))


def captured(graph: Graph, owned: set[int]) -> list[Node]:
    """Nodes of enclosing graphs the sub-graph reads directly (LOOP/IF list them as inputs)."""
    inputs = {n.id for n in graph.inputs}
    seen: dict[int, Node] = {}
    readers = [n for n in graph.nodes() if n.id in owned]
    for node in [*(i for r in readers for i in r.inputs), *graph.outputs]:
        if node.id not in owned and node.id not in inputs:
            seen[node.id] = node
    return [seen[k] for k in sorted(seen)]
