"""Dead-code elimination and identity removal.

Nodes that no output or effect needs are already gone: a :class:`Graph` holds only what its
outputs and effects reach. This pass removes the no-op nodes whose value equals their input:

Before::

    %1 = pos(%0) : float32(n,)
    %2 = cast(%1) : float32(n,)
    return %2

After::

    return %0

Views are kept even when they change nothing visible: an output that is a view must stay a
distinct array object aliasing the input, as NumPy returns it. A no-op whose buffer has an
identity (:mod:`astcompile.passes.identity`) is kept too: ``y = +x`` is a new array, so the
caller (or a store) writing ``y`` or ``y[1:]`` must not write ``x``.
"""

from __future__ import annotations

from collections.abc import Callable

from astcompile.ir.graph import Graph, Node
from astcompile.ir.ops import Op
from astcompile.passes.identity import identity
from astcompile.passes.rebuild import rebuild


def _same_value(node: Node, inputs: tuple[Node, ...]) -> bool:
    src = inputs[0]
    return src.dtype == node.dtype and tuple(src.shape) == tuple(node.shape)


#: op -> "this node is its first input": a rule table, one small predicate per op.
_IDENTITY: dict[Op, Callable[[Node, tuple[Node, ...]], bool]] = {
    Op.POS: _same_value,
    Op.CAST: _same_value,
}


def dce(graph: Graph) -> tuple[Graph, bool]:
    found = identity(graph)

    def rule(node: Node, inputs: tuple[Node, ...]) -> Node | None:
        check = _IDENTITY.get(node.op)
        keep = found.escapes(node) or not found.interchangeable(node)
        if check and not keep and check(node, inputs):
            return inputs[0]
        return None

    return rebuild(graph, rule)
