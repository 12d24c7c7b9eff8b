"""Which Dask operation a traced region becomes: a decision read off the region's graph.

A region called with Dask arrays is traced once on stand-ins of their shapes (no data), and its
graph decides the form, first rule that holds wins (:data:`RULES`):

* ``blockwise``: every node computes an element from the same-index elements of its (broadcast)
  inputs, so the compiled region runs on each chunk as it is;
* ``reduction``: such an elementwise chain ending in one reduction Dask knows how to combine
  (:data:`COMBINED`): the compiled region reduces each chunk, compiled combine steps fold the
  partial results;
* ``overlap``: the elementwise chain reads its inputs through constant-offset slices
  (``u[1:-1] - u[:-2]``): each chunk is extended by the slices' trim on its right side;
* ``numpy``: anything else (an index-dependent op, a size read, a view, a loop...): the region's
  own statements run on the Dask arrays, so Dask's NumPy API builds the graph (correct, lazy).

The decision is a :class:`Plan` (data): ``explain`` prints it, tests compare it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from astcompile.ir.graph import Graph, IndexKind, InputKind, Node, ReduceAttr
from astcompile.ir.ops import Kind, Op
from astcompile.ir.results import OutKind, OutSpec
from astcompile.ir.shapes import hint


class Form(Enum):
    BLOCKWISE = "blockwise"
    REDUCTION = "reduction"
    OVERLAP = "map_overlap"
    NUMPY = "numpy"  # the region's statements on Dask's NumPy API


#: Reductions whose partial results fold with the same reduction (the combine step).
COMBINED = frozenset({Op.SUM, Op.PROD, Op.MAX, Op.MIN, Op.ANY, Op.ALL})
#: Elementwise ops whose value depends on where the element is, not only on the inputs there:
#: run per chunk they would restart at each chunk's origin.
POSITIONAL = frozenset({Op.IOTA})


@dataclass(frozen=True)
class Plan:
    """A region's Dask form. ``output``: which element of the region's result tuple the
    operation computes; ``reduce``/``axes``/``keepdims``: the reduction (REDUCTION);
    ``trims``: per axis, how many elements the slices trim (OVERLAP); ``why``: for NUMPY,
    what kept it from a compiled form."""

    form: Form
    output: int = 0
    reduce: Op | None = None
    axes: tuple[int, ...] = ()
    keepdims: bool = False
    trims: tuple[int, ...] = ()
    why: str = ""

    def describe(self) -> str:
        if self.form is Form.REDUCTION:
            return f"reduction({self.reduce.name.lower()}, axis={self.axes})"
        if self.form is Form.OVERLAP:
            return f"map_overlap(depth={self.trims})"
        if self.form is Form.NUMPY:
            return f"NumPy API ({self.why})"
        return self.form.value


def numpy_plan(why: str) -> Plan:
    return Plan(Form.NUMPY, why=why)


def classify(graph: Graph, template: tuple, params: tuple[str, ...]) -> Plan:
    """The form of a region with parameters ``params`` whose trace left ``graph`` and result
    ``template``."""
    if any(n.attr.name not in params for n in graph.inputs):
        return numpy_plan("it reads a value besides its arguments")
    output = _single_output(template)
    if output is None:
        return numpy_plan("not exactly one computed array among the region's results")
    position, spec = output
    node = graph.outputs[spec.index]
    if graph.effects:
        return numpy_plan("the region writes into an array")
    for rule in RULES:
        plan = rule(graph, node, position)
        if plan is not None:
            return plan
    return numpy_plan(_first_unsupported(graph) or "a shape that is not per chunk")


def _single_output(template: tuple) -> tuple[int, OutSpec] | None:
    """(position, spec) of the one graph output; the other results are arguments or constants."""
    computed = []
    for position, spec in enumerate(template):
        if not isinstance(spec, OutSpec):
            return None
        if spec.kind is OutKind.GRAPH:
            computed.append((position, spec))
    return computed[0] if len(computed) == 1 else None


def _per_element(node: Node) -> bool:
    """Whether ``node`` gives each element from the same-index elements of its inputs."""
    if node.op is Op.INPUT:
        return node.attr.input_kind in (InputKind.ARRAY, InputKind.SCALAR)
    if node.op is Op.CONST:
        return node.ndim == 0  # an array constant would meet every chunk whole
    if node.op is Op.INDEX:
        return _whole_view(node)
    return node.kind is Kind.ELEMENTWISE and node.op not in POSITIONAL


def _items(node: Node) -> tuple:
    return node.attr


def _whole_view(node: Node) -> bool:
    """New axes and slices taking all of their axis (``y[None, :]``): the same per chunk."""
    source, axis = node.inputs[0], 0
    for item in _items(node):
        if item.kind is IndexKind.NEWAXIS:
            continue
        whole = hint(item.length) == hint(source.shape[axis]) if axis < source.ndim else False
        if item.kind is not IndexKind.SLICE or item.step != 1 or item.start != 0 or not whole:
            return False
        axis += 1
    return True


def _chain(node: Node) -> list[Node]:
    """``node`` and everything it reads, inputs first."""
    return Graph("chain", [], [node]).nodes()


def _broadcast_ndim(graph: Graph) -> int:
    return max((n.ndim for n in graph.inputs), default=0)


def _blockwise(graph: Graph, node: Node, position: int) -> Plan | None:
    chain = _chain(node)
    if node.ndim == _broadcast_ndim(graph) and all(_per_element(n) for n in chain):
        return Plan(Form.BLOCKWISE, position)
    return None


def _reduction(graph: Graph, node: Node, position: int) -> Plan | None:
    if node.op not in COMBINED or not isinstance(node.attr, ReduceAttr):
        return None
    source = node.inputs[0]
    if source.ndim != _broadcast_ndim(graph) or not all(_per_element(n) for n in _chain(source)):
        return None
    attr = node.attr
    return Plan(Form.REDUCTION, position, node.op, attr.axes, attr.keepdims)


def _overlap(graph: Graph, node: Node, position: int) -> Plan | None:
    """Every input read through slices ``[a:n-(T-a)]`` with one trim ``T`` per axis."""
    chain = _chain(node)
    arrays = [n for n in graph.inputs if n.ndim]
    if not arrays or any(n.ndim != node.ndim or n.shape != arrays[0].shape for n in arrays):
        return None
    trims: dict[int, int] = {}
    for n in chain:
        if n.op is Op.INDEX:
            if n.inputs[0].op is not Op.INPUT or not _offset_slice(n, trims):
                return None
        elif not _per_element(n):
            return None
    if not any(trims.values()):
        return None
    return Plan(Form.OVERLAP, position, trims=tuple(trims.get(a, 0) for a in range(node.ndim)))


def _offset_slice(node: Node, trims: dict[int, int]) -> bool:
    """Records the trim of each axis; False when a slice is not a constant offset of the
    whole axis or two slices trim one axis differently."""
    source = node.inputs[0]
    for axis, item in enumerate(_items(node)):
        if item.kind is not IndexKind.SLICE or item.step != 1 or not isinstance(item.start, int):
            return False
        if isinstance(item.length, int) and item.length != hint(source.shape[axis]):
            return False  # a fixed length (``u[1:5]``) is no offset of the axis
        trim = hint(source.shape[axis]) - hint(item.length)
        if not 0 <= item.start <= trim or trims.setdefault(axis, trim) != trim:
            return False
    return len(_items(node)) == source.ndim


def _first_unsupported(graph: Graph) -> str:
    for node in graph.nodes():
        if node.op is Op.DIM:
            return "reads an array's size"
        if node.op in POSITIONAL:
            return f"{node.op.name.lower()} depends on the element's position"
        if not _per_element(node) and node.op is not Op.INDEX:
            return f"{node.op.name.lower()} is not per element"
    return ""


#: The forms a compiled region may take, tried in order (NUMPY when none applies).
RULES: tuple[Callable[[Graph, Node, int], Plan | None], ...] = (_blockwise, _reduction, _overlap)
