"""Structured control flow: ``for`` loops and ``if`` on values known only at run time.

The frontend lowers a graph-able ``for i in range(a, b, c): body`` inside a region into::

    def __ac_loop_12(i, s, acc):      # the body; reads outer variables through its closure
        body
        return (s, acc)                # the loop-carried variables
    (s, acc) = __ac_for(__ac_loop_12, (a, b, c), (s, acc))

and an ``if`` inside such a body into ``__ac_if(test, then_fn, else_fn, values)``. Run as plain
Python (a region that fell back) they do exactly what the loop and the ``if`` did. While tracing,
the body is traced **once** with a symbolic induction variable and symbolic carried values,
giving one LOOP node whose sub-graph the backends compile as a native loop: the loop is never
unrolled (except a constant trip count of at most ``UNROLL_LIMIT``) and never interpreted.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from astcompile.graph import build as B
from astcompile.graph.context import TraceBreak, current, is_tracing
from astcompile.graph.ir import Graph, IfAttr, InputAttr, InputKind, LoopAttr, Node
from astcompile.graph.ops import Op
from astcompile.graph.symbolic import SymArray, SymInt, SymScalar, operand

UNROLL_LIMIT = 4
_RETRACES = 3


def ac_for(body: Callable, bounds: Sequence[Any], carried: Sequence[Any]) -> tuple:
    """``for i in range(*bounds): carried = body(i, *carried)``, traced as one LOOP node."""
    if not is_tracing() or _all_concrete(bounds) and len(range(*bounds)) <= UNROLL_LIMIT:
        values = tuple(carried)
        for i in range(*bounds):
            values = body(i, *values)
        return values
    return _trace_loop(body, bounds, tuple(carried))


def ac_if(test: Any, then_fn: Callable, else_fn: Callable, values: Sequence[Any]) -> tuple:
    """``values = then_fn(*values) if test else else_fn(*values)``; an IF node when ``test``
    is only known at run time."""
    if not _is_runtime_value(test):
        return then_fn(*values) if test else else_fn(*values)
    return _trace_if(test, then_fn, else_fn, tuple(values))


def ac_create(func: Callable, *args: Any, **kwargs: Any) -> Any:
    """``np.zeros(shape)``-style calls from a region body: symbolic while tracing."""
    if is_tracing():
        from astcompile.graph.numpy_api import CREATION

        handler = CREATION.get(func)
        if handler is not None:
            return handler(*args, **kwargs)
    return func(*args, **kwargs)


# -- loops -------------------------------------------------------------------------------------


def _all_concrete(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values)


def _is_runtime_value(value: Any) -> bool:
    return isinstance(value, SymArray) or isinstance(value, SymScalar) and value.dynamic


def _bound(value: Any) -> Node:
    """A range() argument as an int64 node; range() itself raises for floats."""
    if isinstance(value, (bool, float)) or (
        isinstance(value, (SymArray, SymScalar)) and value.node.dtype.kind not in "iub"
    ):
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    node = operand(value).node
    if isinstance(value, SymArray) and value.ndim:
        raise TypeError("only integer scalar arrays can be converted to a scalar index")
    if node.dtype != np.int64:
        node = B.cast(B.Operand(node, False, None), np.dtype(np.int64))
    return node


def _trace_loop(body: Callable, bounds: Sequence[Any], init: tuple) -> tuple:
    ctx = current()
    bounds = tuple(bounds)
    if len(bounds) == 1:
        bounds = (0, bounds[0], 1)
    elif len(bounds) == 2:
        bounds = (bounds[0], bounds[1], 1)
    if isinstance(bounds[2], int) and bounds[2] == 0:
        raise ValueError("range() arg 3 must not be zero")
    bound_nodes = [_bound(b) for b in bounds]
    kinds = [_carried_kind(v) for v in init]
    for _ in range(_RETRACES):
        traced = _trace_body(ctx, body, kinds)
        widened = [_unify(k, out) for k, out in zip(kinds, traced.out_kinds)]
        if widened == kinds:
            break
        kinds = widened
    else:
        raise TraceBreak("loop-carried type", "a loop-carried variable keeps changing type")
    init_nodes = [_as_kind(v, k) for v, k in zip(init, kinds)]
    captured = _captured(traced.graph, traced.owned)
    attr = LoopAttr(traced.graph, len(init))
    loop = ctx.node(Op.LOOP, (*bound_nodes, *init_nodes, *captured), np.dtype(bool), (), attr)
    ctx.add_effect(loop)
    return tuple(_result(ctx, loop, k, kind) for k, kind in enumerate(kinds))


class _Traced:
    def __init__(self, graph: Graph, owned: set[int], out_kinds: list) -> None:
        self.graph, self.owned, self.out_kinds = graph, owned, out_kinds


def _trace_body(ctx: Any, body: Callable, kinds: list) -> _Traced:
    """Run the body once on placeholders; the nodes it creates form the LOOP's sub-graph."""
    first = _next_id()
    ivar_node = ctx.node(Op.INPUT, (), np.dtype(np.int64), (),
                         InputAttr(0, "i", InputKind.LOOP_VAR, weak=True))
    ivar = SymScalar(ivar_node, 1, "the loop variable", dynamic=True)
    holders = [_placeholder(ctx, k, index + 1) for index, k in enumerate(kinds)]
    ctx.effect_frames.append([])
    try:
        outs = body(ivar, *holders)
    finally:
        effects = ctx.effect_frames.pop()
    out_kinds = [_carried_kind(v) for v in outs]
    out_nodes = [_as_kind(v, _unify(k, ok)) for v, k, ok in zip(outs, kinds, out_kinds)]
    inputs = [ivar_node, *(h.node for h in holders)]
    graph = Graph("loop_body", inputs, out_nodes, effects)
    owned = {n.id for n in graph.nodes() if n.id >= first}
    return _Traced(graph, owned, out_kinds)


def _next_id() -> int:
    from astcompile.graph.ir import _ids

    probe = next(_ids)
    return probe + 1


# A carried value's kind: ("array", dtype, shape, is_scalar) or ("scalar", dtype, weak-type).
def _carried_kind(value: Any) -> tuple:
    if isinstance(value, SymArray):
        return ("array", value.dtype, value.node.shape, value.is_scalar)
    if isinstance(value, SymScalar):
        return ("scalar", value.node.dtype, type(value.hint))
    if isinstance(value, SymInt):
        return ("scalar", np.dtype(np.int64), int)
    if isinstance(value, (bool, int, float, complex)):
        return ("scalar", np.result_type(value), type(value))
    if isinstance(value, np.generic) and B.check_dtype(value.dtype) is not None:
        return ("array", value.dtype, (), True)
    raise TraceBreak("unsupported loop-carried value",
                     f"a {type(value).__name__} carried through a loop runs in Python")


def _unify(before: tuple, after: tuple) -> tuple:
    """The kind a carried value keeps over all iterations (NumPy's promotion of the two)."""
    if before == after:
        return before
    if before[0] == "array" and after[0] == "array":
        if before[2] != after[2] or before[3] != after[3]:
            raise TraceBreak("loop-carried shape", "an array changes shape from one iteration "
                             "to the next")
        return ("array", np.promote_types(before[1], after[1]), before[2], before[3])
    if before[0] == "scalar" and after[0] == "array" and after[2] == () and after[3]:
        return ("array", np.result_type(before[2](0), after[1].type(0)), (), True)
    if before[0] == "scalar" and after[0] == "scalar":
        python = after[2] if after[2] in (float, complex) else before[2]
        return ("scalar", np.promote_types(before[1], after[1]), python)
    raise TraceBreak("loop-carried type", "a loop-carried value changes from array to scalar")


def _placeholder(ctx: Any, kind: tuple, index: int) -> Any:
    if kind[0] == "array":
        node = ctx.node(Op.INPUT, (), kind[1], kind[2], InputAttr(index, f"c{index}",
                                                                 InputKind.CARRIED))
        holder = SymArray(node, kind[3])
        holder.is_input = True  # in-place updates write through to the buffer it stands for
        return holder
    node = ctx.node(Op.INPUT, (), kind[1], (), InputAttr(index, f"c{index}", InputKind.CARRIED,
                                                        weak=kind[2] in (int, float, bool, complex)))
    return SymScalar(node, kind[2](1), f"loop-carried value {index}", dynamic=True)


def _as_kind(value: Any, kind: tuple) -> Node:
    node = operand(value).node
    if node.dtype != kind[1]:
        node = B.cast(B.Operand(node, False, None), kind[1])
    if kind[0] == "array" and node.shape != tuple(kind[2]):
        node = B.broadcast_to(node, kind[2])
    return node


def _result(ctx: Any, owner: Node, k: int, kind: tuple) -> Any:
    shape = kind[2] if kind[0] == "array" else ()
    node = ctx.node(Op.RESULT, (owner,), kind[1], shape, k)
    if kind[0] == "array":
        return SymArray(node, kind[3])
    return SymScalar(node, kind[2](1), "a value computed in a loop", dynamic=True)


def _captured(graph: Graph, owned: set[int]) -> list[Node]:
    """Nodes of enclosing graphs the sub-graph reads directly (LOOP/IF list them as inputs)."""
    inputs = {n.id for n in graph.inputs}
    seen: dict[int, Node] = {}
    readers = [n for n in graph.nodes() if n.id in owned]
    for node in [*(i for r in readers for i in r.inputs), *graph.outputs]:
        if node.id not in owned and node.id not in inputs:
            seen[node.id] = node
    return [seen[k] for k in sorted(seen)]


# -- if ------------------------------------------------------------------------------------------


def _trace_if(test: Any, then_fn: Callable, else_fn: Callable, values: tuple) -> tuple:
    ctx = current()
    cond = operand(test).node
    if cond.ndim:
        raise ValueError("The truth value of an array with more than one element is ambiguous. "
                         "Use a.any() or a.all()")
    if cond.dtype != np.bool_:
        cond = B.elementwise(Op.NE, [B.Operand(cond, False, None), B.const_operand(0)])
    branches = [_trace_branch(ctx, fn, values) for fn in (then_fn, else_fn)]
    kinds = [_unify(a, b) for a, b in zip(branches[0][2], branches[1][2])]
    graphs, owned = [], set()
    for outs, effects, _, first in branches:
        nodes = [_as_kind(v, k) for v, k in zip(outs, kinds)]
        graph = Graph("branch", [], nodes, effects)
        owned |= {n.id for n in graph.nodes() if n.id >= first}
        graphs.append(graph)
    captured = {n.id: n for g in graphs for n in _captured(g, owned)}
    captured_nodes = [captured[k] for k in sorted(captured)]
    node = ctx.node(Op.IF, (cond, *captured_nodes), np.dtype(bool), (), IfAttr(*graphs))
    ctx.add_effect(node)
    return tuple(_result(ctx, node, k, kind) for k, kind in enumerate(kinds))


def _trace_branch(ctx: Any, fn: Callable, values: tuple) -> tuple:
    first = _next_id()
    ctx.effect_frames.append([])
    try:
        outs = fn(*values)
    finally:
        effects = ctx.effect_frames.pop()
    return outs, effects, [_carried_kind(v) for v in outs], first
