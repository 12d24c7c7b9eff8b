"""Structured control flow: ``for``/``while`` loops and ``if`` on values known only at run time.

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

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from astcompile.graph import build as B
from astcompile.graph import control as C
from astcompile.graph.context import TraceBreak, current, is_tracing
from astcompile.graph.ir import Graph, IfAttr, InputAttr, InputKind, LoopAttr, Node
from astcompile.graph.ops import Op
from astcompile.graph.symbolic import SymArray, SymInt, SymScalar, operand

UNROLL_LIMIT = 4
_RETRACES = 3


def ac_for(body: Callable, bounds: Sequence[Any], carried: Sequence[Any],
           brk: int | None = None) -> tuple:
    """``for i in range(*bounds): carried = body(i, *carried)``, traced as one LOOP node.

    ``brk`` is the position of the ``break`` flag among the carried values, if the body has a
    ``break``: the loop stops after an iteration that sets it."""
    if not is_tracing() or brk is None and _all_concrete(bounds) and len(range(*bounds)) <= UNROLL_LIMIT:
        values = tuple(carried)
        for i in range(*bounds):
            values = body(i, *values)
            if brk is not None and values[brk]:
                break
        return values
    return _trace_loop(body, bounds, tuple(carried), brk)


def ac_while(test: Callable, body: Callable, carried: Sequence[Any], brk: int | None = None) -> tuple:
    """``while test(*carried): carried = body(*carried)``, traced as one LOOP node (never
    unrolled); ``brk`` as for :func:`ac_for`."""
    if not is_tracing():
        values = tuple(carried)
        while test(*values):
            values = body(*values)
            if brk is not None and values[brk]:
                break
        return values
    return _trace_while(test, body, tuple(carried), brk)


def ac_ndindex(body: Callable, shape: Sequence[Any], carried: Sequence[Any],
               brk: int | None = None) -> tuple:
    """``for idx in np.ndindex(*shape): carried = body(idx, *carried)`` as nested loops."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if not is_tracing():
        values = tuple(carried)
        for idx in np.ndindex(*shape):
            values = body(idx, *values)
            if brk is not None and values[brk]:
                break
        return values
    return _nest(body, tuple(shape), (), tuple(carried), brk)


def _nest(body: Callable, shape: tuple, outer: tuple, carried: tuple, brk: int | None) -> tuple:
    if len(outer) == len(shape):
        return body(outer, *carried)
    inner = lambda i, *values: _nest(body, shape, (*outer, i), values, brk)
    return ac_for(inner, (shape[len(outer)],), carried, brk)


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
        from astcompile.graph.numpy_bind import call_function

        handler = CREATION.get(func)
        if handler is not None:
            return call_function(func, handler, args, kwargs)
    return func(*args, **kwargs)


def ac_len(*sequences: Any) -> Any:
    """How many times ``zip(*sequences)`` iterates: an array's first dimension stays
    symbolic (no guard on its size); several lengths give their minimum."""
    lengths = [_length(s) for s in sequences]
    result = lengths[0]
    for other in lengths[1:]:
        result = _min_length(result, other)
    return result


def _length(sequence: Any) -> Any:
    if isinstance(sequence, (SymArray, np.ndarray)):
        if sequence.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return sequence.shape[0]
    return len(sequence)


def _min_length(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    if isinstance(a, SymInt) and isinstance(b, SymInt) and a.dim == b.dim:
        return a
    node = B.elementwise(Op.MINIMUM, [operand(a), operand(b)])
    return SymScalar(node, min(_hint(a), _hint(b)), "the length of a zip")


def _hint(value: Any) -> int:
    return value if isinstance(value, int) else value.hint


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


def _trace_loop(body: Callable, bounds: Sequence[Any], init: tuple, brk: int | None) -> tuple:
    ctx = current()
    bounds = tuple(bounds)
    if len(bounds) == 1:
        bounds = (0, bounds[0], 1)
    elif len(bounds) == 2:
        bounds = (bounds[0], bounds[1], 1)
    if isinstance(bounds[2], int) and bounds[2] == 0:
        raise ValueError("range() arg 3 must not be zero")
    bound_nodes = [_bound(b) for b in bounds]

    def step(ivar: Any, values: tuple) -> tuple:
        outs = tuple(body(ivar, *values))
        return outs, None if brk is None else C.negate(outs[brk])

    traced, kinds = _trace_widening(ctx, step, init, with_ivar=True)
    init_nodes = [_as_kind(v, k) for v, k in zip(init, kinds)]
    attr = LoopAttr(traced.graph, len(init), exits=brk is not None)
    return _loop_node(ctx, (*bound_nodes, *init_nodes), traced, attr, kinds)


def _trace_while(test: Callable, body: Callable, init: tuple, brk: int | None) -> tuple:
    ctx = current()

    def step(_: Any, values: tuple) -> tuple:
        outs = tuple(body(*values))
        if brk is None:
            return outs, test(*outs)
        return outs, C.ac_and(C.negate(outs[brk]), lambda: test(*outs))

    traced, kinds = _trace_widening(ctx, step, init, with_ivar=False)
    init_nodes = [_as_kind(v, k) for v, k in zip(init, kinds)]
    go = test(*(_runtime(node, k) for node, k in zip(init_nodes, kinds)))
    if not _is_runtime_value(go) and not go:
        return init
    attr = LoopAttr(traced.graph, len(init), exits=True, is_while=True)
    return _loop_node(ctx, (C.truth_node(go), *init_nodes), traced, attr, kinds)


def _trace_widening(ctx: Any, step: Callable, init: tuple, with_ivar: bool) -> tuple:
    """Trace the body until the carried values keep their kinds (a Python int that becomes a
    float in the body is a float from the start)."""
    kinds = [_carried_kind(v) for v in init]
    for _ in range(_RETRACES):
        traced = _trace_body(ctx, step, kinds, with_ivar)
        widened = [_unify(k, out) for k, out in zip(kinds, traced.out_kinds)]
        if widened == kinds:
            return traced, kinds
        kinds = widened
    raise TraceBreak("loop-carried type", "a loop-carried variable keeps changing type")


def _loop_node(ctx: Any, heads: tuple, traced: _Traced, attr: LoopAttr, kinds: list) -> tuple:
    captured = _captured(traced.graph, traced.owned)
    loop = ctx.node(Op.LOOP, (*heads, *captured), np.dtype(bool), (), attr)
    ctx.add_effect(loop)
    return tuple(_result(ctx, loop, k, kind) for k, kind in enumerate(kinds))


def _runtime(node: Node, kind: tuple) -> Any:
    """A value of ``kind`` computed by ``node``, unknown until run time (for a while test)."""
    if kind[0] == "array":
        return SymArray(node, kind[3])
    return SymScalar(node, kind[2](1), "a loop-carried value", dynamic=True)


class _Traced:
    def __init__(self, graph: Graph, owned: set[int], out_kinds: list) -> None:
        self.graph, self.owned, self.out_kinds = graph, owned, out_kinds


def _trace_body(ctx: Any, step: Callable, kinds: list, with_ivar: bool) -> _Traced:
    """Run the body once on placeholders; the nodes it creates form the LOOP's sub-graph."""
    first = _next_id()
    inputs, ivar = [], None
    if with_ivar:
        ivar_node = ctx.node(Op.INPUT, (), np.dtype(np.int64), (),
                             InputAttr(0, "i", InputKind.LOOP_VAR, weak=True))
        ivar = SymScalar(ivar_node, 1, "the loop variable", dynamic=True)
        inputs.append(ivar_node)
    holders = [_placeholder(ctx, k, index + 1) for index, k in enumerate(kinds)]
    ctx.effect_frames.append([])
    try:
        outs, go = step(ivar, tuple(holders))
        go_node = None if go is None else C.truth_node(go)
    finally:
        effects = ctx.effect_frames.pop()
    out_kinds = [_carried_kind(v) for v in outs]
    out_nodes = [_as_kind(v, _unify(k, ok)) for v, k, ok in zip(outs, kinds, out_kinds)]
    if go_node is not None:
        out_nodes.append(go_node)
    graph = Graph("loop_body", [*inputs, *(h.node for h in holders)], out_nodes, effects)
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
    if before[0] == "array" and after[0] == "scalar":
        return _unify(after, before)  # branches meet in either order
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
        cond = B.elementwise(Op.NE, [C.node_operand(cond), B.const_operand(0)])
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
