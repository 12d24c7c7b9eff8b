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
hashable scalar. Buffers with an identity (:mod:`astcompile.passes.identity`) are never
merged into one array: a written buffer (or a read of one) is never merged at all, and of
several equal escaping nodes each stays its own array, as NumPy returns them::

    w = np.zeros(2); g = np.zeros(2)   # two outputs: two copy nodes, two arrays
"""

from __future__ import annotations

from collections.abc import Hashable

from astcompile.ir.graph import ConstAttr, Graph, Node, ReduceAttr
from astcompile.ir.ops import Kind, Op
from astcompile.passes.identity import Identity, buffer_of, identity
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


class _Merger:
    """The rebuild rule: each node becomes the first equal node kept before it, unless both
    would then be one escaping array."""

    def __init__(self, found: Identity) -> None:
        self.identity = found
        self.seen: dict[Hashable, Node] = {}
        self.reductions: dict[Hashable, Node] = {}
        self.claimed: set[int] = set()  # kept buffers that an escaping node already is

    def __call__(self, node: Node, inputs: tuple[Node, ...]) -> Node | None:
        key = _key(node, inputs)
        if key is None or not self.identity.interchangeable(node):
            return None
        earlier = self._earlier(node, inputs, key)
        escaping = self.identity.escapes(node)
        if earlier is None or (escaping and buffer_of(earlier).id in self.claimed):
            kept = with_inputs(node, inputs)
            same = _reduction_key(node, inputs)
            if same is not None:
                self.reductions.setdefault(same, kept)
            earlier = kept
        self.seen.setdefault(key, earlier)
        if escaping:
            self.claimed.add(buffer_of(earlier).id)
        return earlier

    def _earlier(self, node: Node, inputs: tuple[Node, ...], key: Hashable) -> Node | None:
        if key in self.seen:
            return self.seen[key]
        same = _reduction_key(node, inputs)
        earlier = self.reductions.get(same) if same is not None else None
        return None if earlier is None else _as_shape(earlier, node.shape)


def cse(graph: Graph) -> tuple[Graph, bool]:
    return rebuild(graph, _Merger(identity(graph)))
