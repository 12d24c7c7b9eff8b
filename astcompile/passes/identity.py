"""Which buffers have an identity the program can observe (an analysis: it never mutates).

NumPy gives every computed array its own buffer (``OpInfo.fresh``): ``w = np.zeros(2)`` and
``g = np.zeros(2)`` are two arrays, and ``w[0] = 1`` leaves ``g`` alone. A pass may treat two
equal computations as one value, or a no-op as its input, only while nothing can tell them
apart. Something can when a buffer is

* **written**: the target of a STORE, through any chain of views (``w[1:][0] = 1`` writes
  ``w``), or an input of a loop or branch whose body stores; or
* **escaping**: a region output, or the buffer under one (``return w[1:]``): the caller gets
  its own array, may write it after the region, or compare it with ``is``. The outputs of loop
  bodies and branches count too: a carried array or a branch result can leave as one.

Example::

    %1 = copy(%0)      # w = np.zeros(2)   escaping
    %2 = copy(%0)      # g = np.zeros(2)   escaping
    return %1, %2      # CSE keeps both: one buffer would make ``w[0] = 1`` change ``g``

A node that reads a written buffer is a value of that buffer at one point in program order,
so it is not interchangeable with an equal-looking read at another point either.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from astcompile.ir.graph import Graph, InputKind, Node, walk
from astcompile.ir.ops import Kind, Op, is_view
from astcompile.passes.rebuild import subgraphs


def _under(node: Node) -> Node | None:
    """The node whose memory ``node`` is (part of): a view's input, the input a NumPy step
    may return a view of (``np.diag(A)``: ``A``), else None."""
    if is_view(node.op):
        return node.inputs[0]
    if node.op is Op.NUMPY_VIEW:
        return node.inputs[node.attr.view_of]
    return None


def buffer_of(node: Node) -> Node:
    """The node that owns the memory ``node`` denotes: itself unless it is a view."""
    while (under := _under(node)) is not None:
        node = under
    return node


def _chain(node: Node) -> Iterator[Node]:
    """``node`` and each view under it, down to its buffer."""
    yield node
    while (under := _under(node)) is not None:
        node = under
        yield node


def _write_targets(node: Node) -> tuple[Node, ...]:
    """The values ``node`` may write into: a store's target; the inputs of a loop or branch
    whose body stores, but for plain scalars (a loop's bounds, a number it reads)."""
    if node.op is Op.STORE:
        return node.inputs[:1]
    if node.kind is Kind.CONTROL and any(n.op is Op.STORE for n in walk([node])):
        return tuple(i for i in node.inputs if not _plain_scalar(i))
    return ()


def _plain_scalar(node: Node) -> bool:
    """A 0-d value no store can write: a scalar argument, a constant, a size, or an
    elementwise result (a 0-d array, ``np.zeros(())``, is a COPY: not plain)."""
    if node.shape != ():
        return False
    if node.op is Op.INPUT:
        return node.attr.input_kind is InputKind.SCALAR
    return node.op in (Op.CONST, Op.DIM) or (
        node.kind is Kind.ELEMENTWISE and node.op is not Op.COPY
    )


@dataclass(frozen=True)
class Identity:
    """Node ids (of the analysed graph) whose buffers are written or escape."""

    written: frozenset[int]
    escaping: frozenset[int]

    def escapes(self, node: Node) -> bool:
        return node.id in self.escaping

    def interchangeable(self, node: Node) -> bool:
        """Whether ``node`` may stand for, or be replaced by, an equal computation: its
        buffer is never written and it reads no buffer that is."""
        if node.id in self.written:
            return False
        return not any(buffer_of(i).id in self.written for i in node.inputs)


def _leaving(graph: Graph) -> Iterator[Node]:
    """The region's outputs and every loop body's and branch's: a carried array or a branch
    result may become a region output (or the caller's own array) as it is."""
    yield from graph.outputs
    for node in walk(graph.nodes()):
        for sub in subgraphs(node):
            yield from sub.outputs


def identity(graph: Graph) -> Identity:
    written = {n.id for w in walk(graph.nodes()) for t in _write_targets(w) for n in _chain(t)}
    escaping = {n.id for o in _leaving(graph) for n in _chain(o)}
    return Identity(frozenset(written), frozenset(escaping))
