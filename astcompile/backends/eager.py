"""The eager backend: runs a graph op by op with NumPy.

It is the first rung of the troubleshooting ladder (a wrong answer here is a tracer bug, not a
codegen bug) and the reference the native backends are tested against. Views are evaluated with
NumPy's own view operations, so a view that leaves the region aliases its base exactly as in
NumPy, and STORE nodes write through them into the caller's arrays.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from astcompile.graph.ir import (
    ConstAttr,
    Graph,
    IfAttr,
    IndexItem,
    LoopAttr,
    Node,
    ReduceAttr,
)
from astcompile.graph.ops import Kind, Op, info
from astcompile.graph.shapes import Dim, evaluate

Env = dict[int, Any]


class _Context:
    """Per-call state: computed values by node id, and input shapes for symbolic sizes."""

    def __init__(self, shapes: Sequence[tuple[int, ...]]) -> None:
        self.values: Env = {}
        self.shapes = shapes

    def dim(self, d: Dim) -> int:
        return evaluate(d, self.shapes)

    def dims(self, ds: Sequence[Dim]) -> tuple[int, ...]:
        return tuple(self.dim(d) for d in ds)


def _const(node: Node, ctx: _Context, args: list) -> Any:
    attr: ConstAttr = node.attr
    if attr.weak or isinstance(attr.value, np.ndarray):
        return attr.value  # arrays are captured live: later in-place changes are seen
    return node.dtype.type(attr.value)


def _dim(node: Node, ctx: _Context, args: list) -> Any:
    return ctx.dim(node.attr)


def _cast(node: Node, ctx: _Context, args: list) -> Any:
    value = args[0]
    if isinstance(value, (bool, int, float)):  # a weak Python scalar input
        return node.dtype.type(value)
    return value.astype(node.dtype)


def _reduce(node: Node, ctx: _Context, args: list) -> Any:
    attr: ReduceAttr = node.attr
    fn = info(node.op).numpy
    ndim = np.ndim(args[0])
    if node.op in (Op.ARGMAX, Op.ARGMIN):
        axis = None if len(attr.axes) != 1 or ndim <= 1 and attr.axes == () else attr.axes[0]
        return fn(args[0], axis=axis, keepdims=attr.keepdims)
    axis = None if len(attr.axes) == ndim else attr.axes
    if node.op in (Op.VAR, Op.STD):
        return fn(args[0], axis=axis, keepdims=attr.keepdims, ddof=attr.ddof)
    return fn(args[0], axis=axis, keepdims=attr.keepdims)


def index_key(items: Sequence[IndexItem], dim: Callable[[Dim], int]) -> tuple:
    """The Python index tuple that a normalised IndexItem list stands for."""
    key: list[Any] = []
    for item in items:
        if item.kind == "newaxis":
            key.append(None)
        elif item.kind == "int":
            key.append(dim(item.start))
        else:
            start, length = dim(item.start), dim(item.length)
            stop = start + length * item.step
            key.append(slice(start, None if stop < 0 else stop, item.step))
    return tuple(key)


def _index(node: Node, ctx: _Context, args: list) -> Any:
    return args[0][index_key(node.attr, ctx.dim)]


def _reshape(node: Node, ctx: _Context, args: list) -> Any:
    return np.reshape(args[0], ctx.dims(node.attr))


def _transpose(node: Node, ctx: _Context, args: list) -> Any:
    return np.transpose(args[0], node.attr)


def _broadcast_to(node: Node, ctx: _Context, args: list) -> Any:
    return np.broadcast_to(args[0], ctx.dims(node.attr))


def _copy(node: Node, ctx: _Context, args: list) -> Any:
    return np.array(args[0], copy=True)


def _store(node: Node, ctx: _Context, args: list) -> Any:
    target, value = args
    target[index_key(node.attr.index, ctx.dim)] = value
    return target


def _loop(node: Node, ctx: _Context, args: list) -> Any:
    attr: LoopAttr = node.attr
    start, stop, step = (int(a) for a in args[:3])
    carried = list(args[3 : 3 + attr.carried])
    captured = list(args[3 + attr.carried :])
    for i in range(start, stop, step):
        carried = run_graph(attr.body, [i, *carried, *captured], ctx.shapes)
    return tuple(carried)


def _if(node: Node, ctx: _Context, args: list) -> Any:
    attr: IfAttr = node.attr
    graph = attr.then_graph if bool(args[0]) else attr.else_graph
    return tuple(run_graph(graph, args[1:], ctx.shapes))


def _result(node: Node, ctx: _Context, args: list) -> Any:
    return args[0][node.attr]


def _numpy_call(node: Node, ctx: _Context, args: list) -> Any:
    return info(node.op).numpy(*args)


#: op -> how to run it; ops missing here run their registry's NumPy function on the inputs.
_RULES: dict[Op, Callable[[Node, _Context, list], Any]] = {
    Op.CONST: _const,
    Op.DIM: _dim,
    Op.CAST: _cast,
    Op.INDEX: _index,
    Op.RESHAPE: _reshape,
    Op.TRANSPOSE: _transpose,
    Op.BROADCAST_TO: _broadcast_to,
    Op.COPY: _copy,
    Op.STORE: _store,
    Op.LOOP: _loop,
    Op.IF: _if,
    Op.RESULT: _result,
}


def _rule(node: Node) -> Callable[[Node, _Context, list], Any]:
    if node.op in _RULES:
        return _RULES[node.op]
    if node.kind is Kind.REDUCTION:
        return _reduce
    if info(node.op).numpy is None:
        raise NotImplementedError(f"eager backend has no rule for {node.op.name}")
    return _numpy_call


def run_graph(graph: Graph, leaves: Sequence[Any], shapes: Sequence[tuple[int, ...]] | None = None) -> list:
    """Evaluate ``graph`` on concrete leaf values; returns the output values."""
    if shapes is None:
        shapes = [np.shape(v) for v in leaves]
    ctx = _Context(shapes)
    for node, value in zip(graph.inputs, leaves):
        ctx.values[node.id] = value
    # Node ids follow program order, so running in id order keeps reads before later stores.
    for node in sorted(graph.nodes(), key=lambda n: n.id):
        if node.id in ctx.values:
            continue
        args = [ctx.values[i.id] for i in node.inputs]
        ctx.values[node.id] = _rule(node)(node, ctx, args)
    return [ctx.values[o.id] for o in graph.outputs]


class EagerBackend:
    """Backend "eager": no code generation, the graph is interpreted with NumPy."""

    name = "eager"

    def compile(self, graph: Graph) -> Callable[[Sequence[Any]], list]:
        def run(leaves: Sequence[Any]) -> list:
            return run_graph(graph, leaves)

        return run
