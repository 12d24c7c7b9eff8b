"""Common-subexpression elimination: one node per distinct computation.

Before::

    %3 = mul(%0, %1)
    %4 = mul(%0, %1)
    %5 = add(%3, %4)

After::

    %3 = mul(%0, %1)
    %5 = add(%3, %3)

Two nodes are the same computation when op, inputs, dtype, shape and attribute are equal.
Inputs, effects and control nodes are never merged; constants only when their value is a
hashable scalar.
"""

from __future__ import annotations

from collections.abc import Hashable

from astcompile.graph.ir import ConstAttr, Graph, Node, ReduceAttr
from astcompile.graph.ops import Kind, Op
from astcompile.passes.rebuild import rebuild, with_inputs

_NEVER = {Kind.EFFECT, Kind.CONTROL}


def _key(node: Node, inputs: tuple[Node, ...]) -> Hashable | None:
    if node.op is Op.INPUT or node.kind in _NEVER:
        return None
    attr = node.attr
    if isinstance(attr, ConstAttr):
        if not isinstance(attr.value, (bool, int, float, complex)):
            return None
        attr = (type(attr.value), attr.value, attr.weak)
    try:
        hash(attr)
    except TypeError:
        return None
    return (node.op, tuple(i.id for i in inputs), node.dtype, node.shape, attr)


def _reduction_key(node: Node, inputs: tuple[Node, ...]) -> Hashable | None:
    """The same reduction whatever its ``keepdims``: ``x.mean()`` and the mean inside
    ``x.var()`` (which keeps dims) are one pass over ``x``, not two."""
    attr = node.attr
    if node.kind is not Kind.REDUCTION or not isinstance(attr, ReduceAttr):
        return None
    return (node.op, tuple(i.id for i in inputs), node.dtype, attr.axes, attr.ddof)


def _as_shape(node: Node, shape: tuple) -> Node:
    """``node`` viewed with the other keepdims shape (the same elements, in the same order)."""
    if node.shape == shape:
        return node
    return Node(Op.RESHAPE, (node,), node.dtype, shape, shape, node.loc)


def cse(graph: Graph) -> tuple[Graph, bool]:
    seen: dict[Hashable, Node] = {}
    reductions: dict[Hashable, Node] = {}

    def rule(node: Node, inputs: tuple[Node, ...]) -> Node | None:
        key = _key(node, inputs)
        if key is None:
            return None
        if key not in seen:
            same = _reduction_key(node, inputs)
            earlier = reductions.get(same) if same is not None else None
            if earlier is not None:
                seen[key] = _as_shape(earlier, node.shape)
            else:
                seen[key] = with_inputs(node, inputs)
                if same is not None:
                    reductions[same] = seen[key]
        return seen[key]

    return rebuild(graph, rule)
