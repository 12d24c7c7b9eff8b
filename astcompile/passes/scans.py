"""Scan loops as scan steps: how the Triton target sees ``np.cumsum``/``np.cumprod``.

The tracer writes ``np.cumsum(x, axis)`` as the loop NumPy runs (trace/numpy_scan.py)::

    %b = copy(broadcast_to(0))                  # a fresh buffer
    store(%b, x[..., 0:1])                      # its first slice
    loop k in 1..n: store(%b, add(%b[..., k - 1], x[..., k]), k)

That makes a loop region, which the C target compiles as one C function. The Triton target has
a scan kernel per row instead (:mod:`astcompile.targets.triton.triton_scan`), so the ``scans``
stage (``astcompile/pipeline.py``) hands its ``accept`` :func:`fold_scans`'s graph as well: each
such loop along the *last* axis (a flattened array's scan is one) becomes one NUMPY node,
``np.cumsum(x, axis=-1, dtype=...)``, read wherever the buffer was read after the loop; the
buffer, its first store and the loop go. If no other effect is left, the region is a flat graph
again. The match is strict (the loop's bounds, the store's index, the fold, the buffer's
readers); anything else keeps the loop, and the region stays on the C target as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from astcompile.ir.graph import (
    ConstAttr,
    DynIndex,
    Graph,
    IndexItem,
    IndexKind,
    LoopAttr,
    Node,
    NumpyCallAttr,
)
from astcompile.ir.ops import Op
from astcompile.passes.rebuild import copy_of, subgraphs

#: fold op -> the NumPy function its scan is.
SCANS: dict[Op, str] = {Op.ADD: "cumsum", Op.MUL: "cumprod"}


@dataclass(frozen=True)
class ScanLoop:
    """One recognised scan: ``buffer`` = ``np.<name>(source, axis=-1)``, written by the
    effects ``first`` (its first slice) and ``loop``."""

    buffer: Node
    source: Node
    first: Node
    loop: Node
    name: str


def scan_of(node: Node) -> str | None:
    """``"cumsum"``/``"cumprod"`` for a scan step (a NUMPY node along the last axis)."""
    attr = node.attr
    if node.op is not Op.NUMPY or not isinstance(attr, NumpyCallAttr) or node.ndim == 0:
        return None
    if attr.name in SCANS.values() and attr.kwargs == _kwargs(node) and not attr.keywords:
        return attr.name
    return None


def _kwargs(node: Node) -> tuple[tuple[str, object], ...]:
    """``axis=-1, dtype=...``: the step's dtype said, as NumPy would widen an int16 scan."""
    return (("axis", -1), ("dtype", node.dtype.name))


def fold_scans(graph: Graph) -> Graph | None:
    """``graph`` with its scan loops as scan steps; None when it has none, or when another
    loop or branch is left (the stores into views and checks left are the Triton store
    phases' business: ``c = np.cumsum(x); c[0] = 0``)."""
    effects = list(graph.effects)
    found = [s for k, e in enumerate(effects) if (s := _match(e, effects[:k])) is not None]
    dropped = {n.id for s in found for n in (s.first, s.loop)}
    left = [e for e in effects if e.id not in dropped]
    if not found or any(e.op not in (Op.STORE, Op.CHECK) for e in left):
        return None
    nodes = graph.nodes()
    if any(subgraphs(n) for n in nodes if n.id not in dropped):
        return None
    if not all(_read_after(s, nodes) for s in found):
        return None
    return _rebuilt(graph, nodes, found, dropped)


def _rebuilt(graph: Graph, nodes: list[Node], found: list[ScanLoop], dropped: set[int]) -> Graph:
    """Every node but the inputs re-created in id (program) order, each buffer replaced by its
    scan step. Even a node whose inputs are unchanged gets a new id: the store phases order
    reads and stores by id (lower/store_plan.py), and a store re-created after a read it
    precedes would otherwise run after it (``c[w:] - c[:-w]`` of a concatenated cumsum)."""
    scans = {s.buffer.id: s for s in found}
    new: dict[int, Node] = {}
    for node in sorted(nodes, key=lambda n: n.id):
        if node.id in dropped:
            continue
        scan = scans.get(node.id)
        if scan is not None:
            attr = NumpyCallAttr(scan.name, _kwargs(node))
            new[node.id] = Node(
                Op.NUMPY, (new[scan.source.id],), node.dtype, node.shape, attr, scan.loop.loc
            )
        else:
            inputs = tuple(new[i.id] for i in node.inputs)
            new[node.id] = node if node.op is Op.INPUT else copy_of(node, inputs)
    inputs = [new[n.id] for n in graph.inputs]
    outputs = [new[n.id] for n in graph.outputs]
    effects = [new[e.id] for e in graph.effects if e.id not in dropped]
    return Graph(graph.name, inputs, outputs, effects, list(graph.guards))


def _read_after(scan: ScanLoop, nodes: list[Node]) -> bool:
    """Whether the buffer is read only by its two effects and by nodes after the loop, and
    the source is computed before the buffer (so the step can take its place in order)."""
    readers = [n for n in nodes if any(i is scan.buffer for i in n.inputs)]
    mine = (scan.first.id, scan.loop.id)
    ok = all(n.id in mine or n.id > scan.loop.id for n in readers)
    return ok and scan.source.id < scan.buffer.id


def _match(loop: Node, before: list[Node]) -> ScanLoop | None:
    """The scan ``loop`` computes, or None."""
    attr = loop.attr
    if not isinstance(attr, LoopAttr) or attr.is_while or attr.exits or attr.carried:
        return None
    start, stop, step = loop.inputs[:3]
    body = attr.body
    if not (_is_const(start, 1) and _is_const(step, 1)) or body.outputs:
        return None
    if len(body.effects) != 1 or body.effects[0].op is not Op.STORE:
        return None
    store, (k,) = body.effects[0], body.inputs
    buffer, value = store.inputs[:2]
    axis = buffer.ndim - 1
    if axis < 0 or buffer.op is not Op.COPY or value.op not in SCANS:
        return None
    if stop.op is not Op.DIM or stop.attr != buffer.shape[axis] or value.dtype != buffer.dtype:
        return None
    if not _at(store.attr.index, store, buffer.shape, k):
        return None
    prev, cur = value.inputs
    source = cur.inputs[0] if cur.op is Op.INDEX else None
    if source is None or source.shape != buffer.shape or source.dtype != buffer.dtype:
        return None
    if not (_picks(cur, source, k) and _picks_before(prev, buffer, k)):
        return None
    first = _first_store(before, buffer, source)
    return None if first is None else ScanLoop(buffer, source, first, loop, SCANS[value.op])


def _is_const(node: Node, value: int) -> bool:
    return node.op is Op.CONST and isinstance(node.attr, ConstAttr) and node.attr.value == value


def _full(items: tuple[IndexItem, ...], shape: tuple) -> bool:
    """Each item takes its whole axis (``:``)."""
    return all(
        it.kind is IndexKind.SLICE and it.start == 0 and it.step == 1 and it.length == d
        for it, d in zip(items, shape, strict=True)
    )


def _at(items: tuple, node: Node, shape: tuple, index: Node) -> bool:
    """``items`` is ``[:, ..., :, index]`` with ``index`` the node's run-time index operand."""
    if len(items) != len(shape) or not _full(items[:-1], shape[:-1]):
        return False
    last = items[-1]
    if last.kind is not IndexKind.INT or not isinstance(last.start, DynIndex):
        return False
    return node.inputs[last.start.input] is index


def _picks(node: Node, array: Node, index: Node) -> bool:
    """``node`` is ``array[..., index]``."""
    return (
        node.op is Op.INDEX and node.inputs[0] is array and _at(node.attr, node, array.shape, index)
    )


def _picks_before(node: Node, array: Node, k: Node) -> bool:
    """``node`` is ``array[..., k - 1]``."""
    if node.op is not Op.INDEX or node.inputs[0] is not array or len(node.inputs) != 2:
        return False
    index = node.inputs[1]
    if index.op is not Op.SUB or index.inputs[0] is not k or not _is_const(index.inputs[1], 1):
        return False
    return _at(node.attr, node, array.shape, index)


def _first_store(before: list[Node], buffer: Node, source: Node) -> Node | None:
    """The store of ``source[..., 0:1]`` into ``buffer[..., 0:1]`` just before the loop."""
    if not before or before[-1].op is not Op.STORE or before[-1].inputs[0] is not buffer:
        return None
    store = before[-1]
    value = store.inputs[1]
    if value.op is not Op.INDEX or value.inputs[0] is not source:
        return None
    first = (*buffer.shape[:-1], 1)
    for items in (store.attr.index, value.attr):
        last = items[-1] if items else None
        if len(items) != buffer.ndim or not _full(items[:-1], first[:-1]):
            return None
        if last.kind is not IndexKind.SLICE or last.start != 0 or last.length != 1:
            return None
    return store
