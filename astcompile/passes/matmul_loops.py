"""Matrix products inside loop regions as the sums a person would write in C.

A flat region runs ``a @ b`` as a NumPy step (BLAS) between its C kernels. A loop region is
one C function: a product inside it had no lowering, so the whole region ran as written
(GB023), and conjugate gradient, Kalman filters and logistic regression stayed at plain
speed. Here each product inside a loop body or branch becomes a multiply and a sum over the
shared axis, which the loop-region emitter fuses into one native loop nest::

    %3 = matmul(%A, %x) : float64(n,)           # A: (n, k), x: (k,)
becomes
    %4 = broadcast_to(%x) (n, k)
    %5 = mul(%A, %4) : float64(n, k)             # lazy: never stored
    %3 = sum(%5) axes=(1,) : float64(n,)

Sums run in a different order than BLAS's (within the float tolerances of
astcompile/compare.py); integer products wrap as NumPy's do. A product at a region's top level
is decomposed only when it is small (by its traced sizes): a large one is BLAS's work, and the
region keeps running as written.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.graph import Graph, Node, ReduceAttr
from astcompile.ir.ops import Op
from astcompile.passes.rebuild import rebuild, scopes, subgraphs

#: Multiply-adds (by traced sizes) up to which a top-level product is decomposed.
SMALL_PRODUCT = 64**3


def matmul_loops(graph: Graph) -> tuple[Graph, bool]:
    if not (graph.effects or any(subgraphs(n) for n in graph.nodes())):
        return graph, False  # a flat region: its products are NumPy steps
    level = scopes(graph)  # a body reaches the outer nodes it reads: level says whose they are

    def rule(node: Node, inputs: tuple[Node, ...]) -> Node | None:
        if node.op not in (Op.MATMUL, Op.DOT) or not _plain_product(node, inputs):
            return None
        if len(level[node.id]) == 1 and _work(inputs) > SMALL_PRODUCT:
            return None
        return _as_sum(node, *inputs)

    return rebuild(graph, rule)


def _plain_product(node: Node, inputs: tuple[Node, ...]) -> bool:
    """1-D and 2-D operands of a real or integer dtype (bool products are logical ors)."""
    a, b = inputs
    return (
        node.dtype.kind in "iuf"
        and a.dtype == b.dtype == node.dtype
        and 1 <= a.ndim <= 2
        and 1 <= b.ndim <= 2
    )


def _work(inputs: tuple[Node, ...]) -> int:
    a, b = inputs
    dims = [*a.shape, *(b.shape[1:] if b.ndim == 2 else ())]
    return int(np.prod([S.hint(d) for d in dims], dtype=np.int64))


def _as_sum(node: Node, a: Node, b: Node) -> Node:
    """``a @ b`` as ``sum(a' * b', axis=k)`` with both sides spread to one shape (rows, shared,
    columns) whose axis ``k`` is the shared one."""
    if a.op is Op.TRANSPOSE and a.ndim == 2:
        return _transposed(node, a.inputs[0], b)
    rows = a.shape[:1] if a.ndim == 2 else ()
    cols = b.shape[1:] if b.ndim == 2 else ()
    full = (*rows, a.shape[-1], *cols)
    left = _spread(a, range(a.ndim), full, node)
    right = _spread(b, range(len(rows), len(full)), full, node)
    product = Node(Op.MUL, (left, right), node.dtype, full, None, node.loc)
    return Node(
        Op.SUM, (product,), node.dtype, node.shape, ReduceAttr((len(rows),), False), node.loc
    )


def _transposed(node: Node, x: Node, b: Node) -> Node:
    """``x.T @ b`` as ``sum(x' * b', axis=0)`` over the shape (shared, rows, columns): the
    sum runs down ``x``'s rows, each read in place (the loop emitter adds whole rows), not
    down its columns."""
    cols = b.shape[1:] if b.ndim == 2 else ()
    full = (x.shape[0], x.shape[1], *cols)
    left = _spread(x, range(2), full, node)
    right = _spread(b, [0, 2][: b.ndim], full, node)
    product = Node(Op.MUL, (left, right), node.dtype, full, None, node.loc)
    return Node(Op.SUM, (product,), node.dtype, node.shape, ReduceAttr((0,), False), node.loc)


def _spread(x: Node, where: Sequence[int], full: tuple, at: Node) -> Node:
    """``x``, whose axes are axes ``where`` of ``full``, broadcast to ``full``: new axes come
    first (NumPy's broadcasting), then a transpose puts them in place. Views only, never a
    reshape, so a strided ``x`` (a column, a loop's carried array) is read in place."""
    others = [j for j in range(len(full)) if j not in where]
    if not others:
        return x
    order = [*others, *where]
    spread = tuple(full[j] for j in order)
    x = Node(Op.BROADCAST_TO, (x,), x.dtype, spread, spread, at.loc)
    if order == sorted(order):
        return x
    perm = tuple(order.index(i) for i in range(len(full)))
    return Node(Op.TRANSPOSE, (x,), x.dtype, full, perm, at.loc)
