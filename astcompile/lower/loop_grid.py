"""Independent loops as whole-array statements (target-free): the iterations become one more
array axis. The Triton target runs them as kernels over all iterations (its host programs).

A loop whose iterations provably touch disjoint memory
(:func:`~astcompile.lower.independence.independent`, the proof behind the C target's
``omp parallel for``) needs no order: iteration ``i`` reads and writes its own slab ``i`` of
every array it writes. Its body is rewritten as whole-array statements over all iterations at
once, the loop variable's index becoming a slice and every value that depends on it gaining a
leading axis of one element per iteration. The statements then join their segment's kernels,
so the grid of those kernels covers the iterations:

    for i in range(x.shape[0]):                 # out[0:x_0] = sin(x[0:x_0, :]) * 2.0
        out[i, :] = np.sin(x[i, :]) * 2.0       #   one kernel, one store kernel

What is rewritten: the loop variable as an index ``i + c`` that stays in range for every
iteration (``range(1, n - 1)`` with ``x[i - 1]`` and ``x[i + 1]`` on an axis of ``n``) or as a
value (``start + step * iota``); elementwise operations, reductions and the views that only
move axes. A loop with anything else (a nested loop or branch, an ``assert``, an argmax, an
index that may wrap or fall outside the array) is not rewritten: :func:`vectorize` says None.
"""

from __future__ import annotations

from astcompile.ir.attrs import ConstAttr, DynIndex, IndexItem, IndexKind, ReduceAttr, StoreAttr
from astcompile.ir.graph import Node, own_nodes
from astcompile.ir.ops import Kind, Op
from astcompile.ir.shapes import Dim, DimOp, SymDim, dim_add, dim_floordiv, dim_max, dim_sub


class _NoGrid(Exception):
    """Something in the body has no whole-array form."""


def vectorize(loop: Node) -> list[Node] | None:
    """The body of ``loop`` (an independent ``for``) as whole-array nodes in program order:
    values that do not depend on the loop variable as they are, the others over a leading
    iteration axis; or None."""
    attr = loop.attr
    if attr.is_while or attr.carried or attr.exits:
        return None
    try:
        return _Grid(loop).nodes()
    except _NoGrid:
        return None


def _as_dim(node: Node) -> Dim:
    if node.op is Op.CONST and isinstance(node.attr, ConstAttr) and node.shape == ():
        value = node.attr.value
        if isinstance(value, int) or getattr(value, "dtype", None) is not None:
            return int(value)
    if node.op is Op.DIM:
        return node.attr
    raise _NoGrid


def _nonnegative(d: Dim) -> bool:
    return (isinstance(d, int) and d >= 0) or (isinstance(d, SymDim) and d.op is DimOp.SYM)


class _Grid:
    def __init__(self, loop: Node) -> None:
        self.loop = loop
        start, stop, step = (_as_dim(b) for b in loop.inputs[:3])
        if not isinstance(start, int) or not isinstance(step, int) or step <= 0:
            raise _NoGrid
        span = dim_sub(stop, start)
        if not _nonnegative(span):
            span = dim_max(span, 0)
        trips = span if step == 1 else dim_floordiv(dim_add(span, step - 1), step)
        self.start, self.stop, self.step, self.trips = start, stop, step, trips
        self.ivar = loop.attr.body.inputs[0]
        self.new: dict[int, Node] = {}  # body node id -> its node over the iteration axis
        self.offsets: dict[int, int] = {self.ivar.id: 0}  # index nodes: i + offset
        self.out: list[Node] = []

    def nodes(self) -> list[Node]:
        body = own_nodes(self.loop.attr.body, self.loop.inputs)
        for node in body:
            offset = self._offset(node)
            if offset is not None:
                self.offsets[node.id] = offset
        values = {i.id for node in body for i in self._values(node)}
        if self.ivar.id in values:  # the loop variable as a value: start + step * iota
            self.new[self.ivar.id] = self._iterations()
        for node in body:
            if node.op in (Op.CONST, Op.DIM) or (node.id in self.offsets and node.id not in values):
                continue
            self._node(node)
        return self.out

    def _iterations(self) -> Node:
        """The loop variable's values, one per iteration."""
        ivar = self.ivar
        made = self.emit(Op.IOTA, (), ivar, (self.trips,), 0)
        for op, k in [(Op.MUL, self.step), (Op.ADD, self.start)]:
            if k != (1 if op is Op.MUL else 0):
                const = Node(Op.CONST, (), ivar.dtype, (), ConstAttr(ivar.dtype.type(k)), ivar.loc)
                made = self.emit(op, (made, const), ivar, (self.trips,), None)
        return made

    def _offset(self, node: Node) -> int | None:
        """``c`` for ``i + c`` and ``i - c`` (``c`` a constant), 0 for ``i``."""
        if node.op not in (Op.ADD, Op.SUB) or len(node.inputs) != 2:
            return None
        a, b = node.inputs
        if a.id in self.offsets and b.op is Op.CONST:
            c = _as_dim(b)
            return self.offsets[a.id] + (c if node.op is Op.ADD else -c)
        if node.op is Op.ADD and b.id in self.offsets and a.op is Op.CONST:
            return self.offsets[b.id] + _as_dim(a)
        return None

    def _values(self, node: Node) -> tuple[Node, ...]:
        """The inputs ``node`` reads as values (not as run-time indices)."""
        if node.op is Op.INDEX:
            return node.inputs[:1]
        if node.op is Op.STORE:
            return node.inputs[:2]
        return node.inputs

    def _node(self, node: Node) -> None:
        varies = node.op in (Op.INDEX, Op.STORE) and len(node.inputs) > len(self._values(node))
        varies = varies or any(i.id in self.new for i in node.inputs)
        if not varies:
            if node.kind in (Kind.CONTROL, Kind.EFFECT):
                raise _NoGrid
            self.out.append(node)  # the same every iteration: computed once
            return
        rule = _RULES.get(node.op) or _RULES.get(node.kind)
        if rule is None:
            raise _NoGrid
        made = rule(self, node)
        if node.op is not Op.STORE:
            self.new[node.id] = made

    def emit(self, op: Op, inputs: tuple, node: Node, shape: tuple, attr) -> Node:
        made = Node(op, tuple(inputs), node.dtype, tuple(shape), attr, node.loc)
        self.out.append(made)
        return made

    # -- lifting operands -------------------------------------------------------------------

    def lifted(self, value: Node, rank: int) -> Node:
        """``value`` over the iteration axis, with size-1 axes after it up to ``rank`` axes
        of its own (NumPy aligns the other operands on the right)."""
        new = self.new.get(value.id)
        if new is None:
            return value
        pad = rank - value.ndim
        if pad <= 0:
            return new
        shape = (self.trips, *([1] * pad), *value.shape)
        return self.emit(Op.RESHAPE, (new,), value, shape, shape)

    def items(self, node: Node, items: tuple[IndexItem, ...]) -> tuple[tuple, int]:
        """``items`` with the loop variable's INT item as a slice over the iterations, and the
        position of that axis in the result."""
        out, axis, position = [], None, 0
        for k, item in enumerate(items):
            if isinstance(item.start, DynIndex):
                if item.kind is not IndexKind.INT or axis is not None:
                    raise _NoGrid
                index = node.inputs[item.start.input]
                if index.id not in self.offsets:
                    raise _NoGrid
                axis = position
                out.append(self._slab(node, k, self.offsets[index.id]))
                position += 1
                continue
            if item.kind is IndexKind.DSLICE or isinstance(item.stop, DynIndex):
                raise _NoGrid
            out.append(item)
            position += item.kind is not IndexKind.INT
        if axis is None:
            raise _NoGrid
        return tuple(out), axis

    def _slab(self, node: Node, k: int, offset: int) -> IndexItem:
        """The slice of every iteration's ``i + offset`` on axis ``k`` of the indexed array,
        proved inside it: no index wraps around or falls outside."""
        size = _axis_size(node, k)
        first = self.start + offset
        if first < 0 or not _at_least(size, self.stop, offset):  # the last: stop - 1 + offset
            raise _NoGrid
        return IndexItem(IndexKind.SLICE, first, self.trips, self.step)


def _linear(d: Dim) -> tuple[Dim | None, int]:
    """``d`` as (symbolic part, constant): ``x_0 - 2`` is (x_0, -2)."""
    if isinstance(d, int):
        return None, d
    if d.op in (DimOp.ADD, DimOp.SUB) and isinstance(d.args[1], int):
        base, const = _linear(d.args[0])
        return base, const + (d.args[1] if d.op is DimOp.ADD else -d.args[1])
    return d, 0


def _at_least(size: Dim, stop: Dim, offset: int) -> bool:
    """Whether ``size >= stop + offset`` whatever the sizes are."""
    (a, x), (b, y) = _linear(size), _linear(stop)
    return a == b and x - y - offset >= 0


def _axis_size(node: Node, k: int) -> Dim:
    """The size of the axis item ``k`` of ``node``'s index selects from."""
    base = node.inputs[0]
    items = node.attr.index if node.op is Op.STORE else node.attr
    axis = sum(1 for item in items[:k] if item.kind is not IndexKind.NEWAXIS)
    return base.shape[axis]


def _moved_to_front(grid: _Grid, value: Node, made: Node, axis: int) -> Node:
    """``made`` (an index with the iteration axis at ``axis``) with that axis first."""
    if axis == 0:
        return made
    perm = (axis, *(a for a in range(made.ndim) if a != axis))
    shape = tuple(made.shape[a] for a in perm)
    return grid.emit(Op.TRANSPOSE, (made,), value, shape, perm)


def _index(grid: _Grid, node: Node) -> Node:
    if node.inputs[0].id in grid.new:
        raise _NoGrid  # an index of a value that varies: not a slab of memory
    items, axis = grid.items(node, node.attr)
    shape = list(node.shape)
    shape.insert(axis, grid.trips)
    made = grid.emit(Op.INDEX, node.inputs[:1], node, shape, items)
    return _moved_to_front(grid, node, made, axis)


def _store(grid: _Grid, node: Node) -> Node:
    target, value = node.inputs[:2]
    if target.id in grid.new:
        raise _NoGrid
    items, axis = grid.items(node, node.attr.index)
    view = _view_rank(target, items)
    lifted = grid.lifted(value, view - 1)
    if value.id in grid.new and axis != 0:  # the iteration axis where the view has it
        perm = (*range(1, axis + 1), 0, *range(axis + 1, lifted.ndim))
        shape = tuple(lifted.shape[a] for a in perm)
        lifted = grid.emit(Op.TRANSPOSE, (lifted,), value, shape, perm)
    elif value.id not in grid.new and value.ndim and (axis != 0 or value.ndim > view - 1):
        raise _NoGrid  # NumPy would align it against the iteration axis
    return grid.emit(Op.STORE, (target, lifted), node, node.shape, StoreAttr(items))


def _view_rank(target: Node, items: tuple) -> int:
    used = sum(1 for i in items if i.kind is not IndexKind.NEWAXIS)
    kept = sum(1 for i in items if i.kind is not IndexKind.INT)
    return kept + target.ndim - used


def _elementwise(grid: _Grid, node: Node) -> Node:
    rank = node.ndim
    inputs = tuple(grid.lifted(i, rank) for i in node.inputs)
    return grid.emit(node.op, inputs, node, (grid.trips, *node.shape), node.attr)


def _reduce(grid: _Grid, node: Node) -> Node:
    attr = node.attr
    if not isinstance(attr, ReduceAttr):
        raise _NoGrid  # argmax/argmin: a flat index of each slab
    source = node.inputs[0]
    axes = tuple(a + 1 for a in attr.axes)
    made = ReduceAttr(axes, attr.keepdims, attr.ddof)
    return grid.emit(
        node.op, (grid.lifted(source, source.ndim),), node, (grid.trips, *node.shape), made
    )


def _transpose(grid: _Grid, node: Node) -> Node:
    perm = (0, *(a + 1 for a in node.attr))
    return grid.emit(
        Op.TRANSPOSE, (grid.new[node.inputs[0].id],), node, (grid.trips, *node.shape), perm
    )


def _broadcast(grid: _Grid, node: Node) -> Node:
    source = grid.lifted(node.inputs[0], node.ndim)
    shape = (grid.trips, *node.shape)
    return grid.emit(Op.BROADCAST_TO, (source,), node, shape, shape)


_RULES = {
    Op.INDEX: _index,
    Op.STORE: _store,
    Op.TRANSPOSE: _transpose,
    Op.BROADCAST_TO: _broadcast,
    Kind.ELEMENTWISE: _elementwise,
    Kind.REDUCTION: _reduce,
}
