"""Decomposition: statistical reductions into the primitives the code generators know.

``var`` and ``std`` follow NumPy's two-pass algorithm (``numpy/_core/_methods.py``): the mean
first, then the mean of squared deviations, each sum accumulated like NumPy's dtype rules
(integers and bools are promoted to float64 first). ``MEAN`` stays a primitive: a sum divided
by the element count, which only the kernel knows (sizes are parameters), and a ``MEAN`` with
``ddof`` divides by ``count - ddof``.

Before::

    %1 = var(%x) axes=(1,), keepdims=False, ddof=1 : float32(n,)

After::

    %2 = mean(%x) axes=(1,), keepdims=True : float32(n, 1)
    %3 = sub(%x, %2) : float32(n, m)
    %4 = mul(%3, %3) : float32(n, m)
    %1 = mean(%4) axes=(1,), keepdims=False, ddof=1 : float32(n,)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from astcompile.ir.graph import Graph, Node, ReduceAttr
from astcompile.ir.ops import Op
from astcompile.passes.rebuild import rebuild

_REAL = frozenset("biuf")


def _keepdims_shape(src: Node, axes: tuple[int, ...]) -> tuple:
    return tuple(1 if a in axes else d for a, d in enumerate(src.shape))


def _var(node: Node, inputs: tuple[Node, ...]) -> Node | None:
    (x,) = inputs
    attr: ReduceAttr = node.attr
    if x.dtype.kind not in _REAL or node.dtype.kind != "f" or not attr.axes:
        return None
    work = node.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    if x.dtype != work:
        x = Node(Op.CAST, (x,), work, x.shape, None, node.loc)
    mean = Node(
        Op.MEAN, (x,), work, _keepdims_shape(x, attr.axes), ReduceAttr(attr.axes, True), node.loc
    )
    dev = Node(Op.SUB, (x, mean), work, x.shape, None, node.loc)
    sq = Node(Op.MUL, (dev, dev), work, x.shape, None, node.loc)
    return Node(
        Op.MEAN,
        (sq,),
        node.dtype,
        node.shape,
        ReduceAttr(attr.axes, attr.keepdims, attr.ddof),
        node.loc,
    )


def _std(node: Node, inputs: tuple[Node, ...]) -> Node | None:
    var = _var(node, inputs)
    if var is None:
        return None
    return Node(Op.SQRT, (var,), node.dtype, node.shape, None, node.loc)


#: op -> decomposition; a rule returns None to leave the node alone (e.g. complex input).
RULES: dict[Op, Callable[[Node, tuple[Node, ...]], Node | None]] = {
    Op.VAR: _var,
    Op.STD: _std,
}


def decompose(graph: Graph) -> tuple[Graph, bool]:
    def rule(node: Node, inputs: tuple[Node, ...]) -> Node | None:
        fn = RULES.get(node.op)
        return fn(node, inputs) if fn else None

    return rebuild(graph, rule)
