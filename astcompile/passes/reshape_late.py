"""Reshapes late: an elementwise op on reshaped arrays runs before the reshape.

``np.repeat(x, k) * 0.5 + 0.25``: the repeat is a copy into an ``(n, k)`` buffer reshaped to
``(n * k,)`` (trace/numpy_repeat.py), and the kernel scheduler fuses nothing across a reshape,
so the copy was written out and read again by a second kernel. Each element of an elementwise
result depends only on the same element of its operands, and a reshape keeps the elements'
C order, so ``f(reshape(a), s) == reshape(f(a, s))`` for a scalar ``s`` (or other operands
reshaped from arrays of ``a``'s shape). Before::

    %4 = copy(%3) : float64(n, 4)
    %5 = reshape(%4) (n * 4,)
    %7 = mul(%5, %6) : float64(n * 4,)        # %6: a scalar
    %9 = add(%7, %8) : float64(n * 4,)

After (one kernel over ``(n, 4)``; the last reshape of its fresh result is a view)::

    %10 = mul(%4, %6) : float64(n, 4)
    %11 = add(%10, %8) : float64(n, 4)
    %9 = reshape(%11) (n * 4,)

Flat regions only: the loop-region emitter reads a reshape only of an array in memory.
"""

from __future__ import annotations

from astcompile.ir.graph import Graph, Node
from astcompile.ir.ops import Kind, Op
from astcompile.passes.rebuild import rebuild, subgraphs


def reshape_late(graph: Graph) -> tuple[Graph, bool]:
    if graph.effects or any(subgraphs(n) for n in graph.nodes()):
        return graph, False
    return rebuild(graph, _late)


def _late(node: Node, inputs: tuple[Node, ...]) -> Node | None:
    if node.kind is not Kind.ELEMENTWISE or node.shape == ():
        return None
    reshaped = [i for i in inputs if i.shape != ()]
    if not reshaped or any(i.op is not Op.RESHAPE or i.shape != node.shape for i in reshaped):
        return None
    source = reshaped[0].inputs[0].shape
    if source == node.shape or any(i.inputs[0].shape != source for i in reshaped):
        return None
    early = tuple(i.inputs[0] if i.shape != () else i for i in inputs)
    value = Node(node.op, early, node.dtype, source, node.attr, node.loc)
    return Node(Op.RESHAPE, (value,), node.dtype, node.shape, reshaped[0].attr, node.loc)
