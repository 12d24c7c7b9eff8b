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
hashable scalar, and of the same sign (``0.0`` and ``-0.0`` are equal, not the same). Buffers with an identity (:mod:`astcompile.passes.identity`) are never
merged into one array: a written buffer (or a read of one) is never merged at all, and of
several equal escaping nodes each stays its own array, as NumPy returns them::

    w = np.zeros(2); g = np.zeros(2)   # two outputs: two copy nodes, two arrays
"""

from __future__ import annotations

from collections.abc import Hashable

from astcompile.ir.graph import ConstAttr, Graph, Node, ReduceAttr
from astcompile.ir.ops import Kind, Op
from astcompile.passes.identity import Identity, buffer_of, identity
from astcompile.passes.rebuild import Scope, rebuild, scopes, with_inputs, within

_NEVER = {Kind.EFFECT, Kind.CONTROL}


def _key(node: Node, inputs: tuple[Node, ...]) -> Hashable | None:
    if node.op is Op.INPUT or node.kind in _NEVER:
        return None
    attr = node.attr
    if isinstance(attr, ConstAttr):
        if not isinstance(attr.value, (bool, int, float, complex)):
            return None
        # repr tells 0.0 from -0.0 (equal values: np.minimum(x, 0.0) is not np.minimum(x, -0.0))
        attr = (type(attr.value), attr.value, repr(attr.value), attr.weak)
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
    """The rebuild rule: each node becomes the first equal node kept before it at its own
    level or one around it (in a loop graph, a value inside a loop body may stand for an equal
    value computed before the loop, never the other way), unless both would then be one
    escaping array."""

    def __init__(self, found: Identity, levels: dict[int, Scope]) -> None:
        self.identity = found
        self.levels = levels  # original node id -> its level
        self.level_of: dict[int, Scope] = {}  # kept node id -> its level
        self.seen: dict[Hashable, list[Node]] = {}
        self.reductions: dict[Hashable, list[Node]] = {}
        self.claimed: set[int] = set()  # kept buffers that an escaping node already is

    def __call__(self, node: Node, inputs: tuple[Node, ...]) -> Node | None:
        key = _key(node, inputs)
        if key is None or not self.identity.interchangeable(node):
            return None
        level = self.levels.get(node.id, ())
        earlier = self._earlier(node, inputs, key, level)
        escaping = self.identity.escapes(node)
        if earlier is None or (escaping and buffer_of(earlier).id in self.claimed):
            kept = with_inputs(node, inputs)
            self.level_of[kept.id] = level
            same = _reduction_key(node, inputs)
            if same is not None:
                self.reductions.setdefault(same, []).append(kept)
            earlier = kept
        if self._visible(self.seen.get(key, []), level) is None:
            self.level_of.setdefault(earlier.id, level)
            self.seen.setdefault(key, []).append(earlier)
        if escaping:
            self.claimed.add(buffer_of(earlier).id)
        return earlier

    def _visible(self, found: list[Node], level: Scope) -> Node | None:
        """The first of ``found`` computed at ``level`` or around it."""
        return next((n for n in found if within(level, self.level_of[n.id])), None)

    def _earlier(
        self, node: Node, inputs: tuple[Node, ...], key: Hashable, level: Scope
    ) -> Node | None:
        earlier = self._visible(self.seen.get(key, []), level)
        if earlier is not None:
            return earlier
        same = _reduction_key(node, inputs)
        earlier = self._visible(self.reductions.get(same, []), level) if same else None
        return None if earlier is None else _as_shape(earlier, node.shape)


def cse(graph: Graph) -> tuple[Graph, bool]:
    return rebuild(graph, _Merger(identity(graph), scopes(graph)))
