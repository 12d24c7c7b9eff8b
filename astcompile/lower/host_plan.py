"""What the host of a loop region knows without asking the device, target-free: the Triton
target's host programs plan with it, the eager target checks the arguments a store writes.

* :func:`host_scalars`: the scalars the host computes itself (a counter ``k += 2``, a test
  ``t % 2 == 0``, a bound ``n + 1``): elementwise scalars of host values, carried scalars whose
  initial and next values are host scalars, and their final values;
* :func:`written_arguments`: the arguments a store may write, through views, carried values
  and loop and branch results (a carried array may start as an argument or become one).
"""

from __future__ import annotations

from astcompile.ir.attrs import InputKind
from astcompile.ir.graph import Graph, Node, walk
from astcompile.ir.ops import Kind, Op, is_fresh

#: Nodes the host has without computing them (with scalar arguments and loop variables).
OWN = frozenset({Op.CONST, Op.DIM})
#: Kinds of op whose result is a new array, never a view of an argument.
_COMPUTED = frozenset({Kind.ELEMENTWISE, Kind.REDUCTION})


def blocks(branch: Node) -> tuple[Graph, Graph]:
    """An IF's two blocks."""
    return branch.attr.then_graph, branch.attr.else_graph


def host_leaf(node: Node) -> bool:
    """A value the host has without computing: a constant, a size, a scalar argument, a loop
    variable."""
    if node.op in OWN:
        return True
    kinds = (InputKind.SCALAR, InputKind.LOOP_VAR)
    return node.op is Op.INPUT and node.attr.input_kind in kinds and node.shape == ()


def host_scalars(graph: Graph) -> set[int]:
    """Ids of the scalars the host computes itself: elementwise scalars of host values, carried
    scalars whose initial and next values are host scalars, and their loops' final values.
    Carried scalars start as host scalars; one whose values are not is dropped, until nothing
    changes."""
    nodes = sorted(walk(graph.nodes()), key=lambda n: n.id)
    loops = [n for n in nodes if n.op is Op.LOOP]
    holders = {h.id: (n, k) for n in loops for k, h in enumerate(n.attr.holders) if h.shape == ()}
    carried = set(holders)
    while True:
        host = set(carried)
        for n in nodes:
            if _elementwise_scalar(n) and all(i.id in host or host_leaf(i) for i in n.inputs):
                host.add(n.id)
            elif n.op is Op.RESULT and n.inputs[0].op is Op.LOOP:
                holder = n.inputs[0].attr.holders[n.attr]
                if holder.id in carried:
                    host.add(n.id)
            elif n.op is Op.RESULT and n.inputs[0].op is Op.IF:
                picked = [g.outputs[n.attr] for g in blocks(n.inputs[0])]
                if all(v.id in host or host_leaf(v) for v in picked):
                    host.add(n.id)
        kept = {h for h in carried if _carried_on_host(holders[h], host)}
        if kept == carried:
            return host
        carried = kept


def _elementwise_scalar(node: Node) -> bool:
    return node.shape == () and node.kind is Kind.ELEMENTWISE and node.op is not Op.COPY


def _carried_on_host(where: tuple[Node, int], host: set[int]) -> bool:
    loop, k = where
    attr = loop.attr
    init = loop.inputs[attr.heads + k]
    out = attr.body.outputs[k]
    return all(v.id in host or host_leaf(v) for v in (init, out))


def written_arguments(graph: Graph, targets: list[Node]) -> tuple[int, ...]:
    """Positions of the array arguments the stores into ``targets`` may write."""
    inputs = graph.inputs
    leaves = {n.id: k for k, n in enumerate(inputs)}
    holders = {
        h.id: (n, k)
        for n in walk(graph.nodes())
        if n.op is Op.LOOP
        for k, h in enumerate(n.attr.holders)
    }
    arrays = {k for k, n in enumerate(inputs) if n.attr.input_kind is InputKind.ARRAY}
    written: set[int] = set()
    for target in targets:
        found = _origins(target, leaves, holders, set())
        written |= arrays if found is None else found
    return tuple(sorted(written))


def _origins(node: Node, leaves: dict, holders: dict, seen: set[int]) -> set[int] | None:
    """The arguments whose memory ``node`` may be (None: any of them): an argument, a
    view of one, or a carried value that started as one or became one."""
    if node.id in leaves:
        return {leaves[node.id]}
    if node.id in seen:
        return set()
    seen.add(node.id)
    if node.op is Op.INPUT and node.attr.input_kind is InputKind.CARRIED:
        loop, k = holders[node.id]
        sources = [loop.inputs[loop.attr.heads + k], loop.attr.body.outputs[k]]
    elif node.op is Op.RESULT and node.inputs[0].op is Op.LOOP:
        sources = [node.inputs[0].attr.holders[node.attr]]
    elif node.op is Op.RESULT and node.inputs[0].op is Op.IF:
        sources = [g.outputs[node.attr] for g in blocks(node.inputs[0])]
    elif node.kind is Kind.VIEW:
        sources = node.inputs[:1]
    elif node.op in (Op.INPUT, Op.CONST) or is_fresh(node.op) or node.kind in _COMPUTED:
        return set()
    else:
        return None
    found: set[int] = set()
    for source in sources:
        more = _origins(source, leaves, holders, seen)
        if more is None:
            return None
        found |= more
    return found
