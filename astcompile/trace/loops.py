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
unrolled (except the short trip counts of ``trip_counts.unrolls``) and never interpreted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from astcompile.frontend.spec import UNBOUND, UNSEEN
from astcompile.ir.graph import Graph, InputAttr, InputKind, LoopAttr, Node
from astcompile.ir.ops import Op
from astcompile.trace import carried as CK
from astcompile.trace import control as C
from astcompile.trace import escapes, growing_lists, handlers, limits, local_lists, user_names
from astcompile.trace import int_bounds as IB
from astcompile.trace import int_counters as counting
from astcompile.trace import loop_starts as LS
from astcompile.trace import nodes as B
from astcompile.trace import subgraphs as SG
from astcompile.trace.branches import trace_if
from astcompile.trace.context import TraceBreak, current, is_tracing
from astcompile.trace.iteration import Exhausted
from astcompile.trace.lists import numpy_arrays
from astcompile.trace.numpy_api import CREATION
from astcompile.trace.numpy_bind import call_function
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymScalar, operand
from astcompile.trace.trip_counts import unrolls
from astcompile.trace.unread_values import keep_in_body

_RETRACES = 3
#: The name of a comprehension's list (frontend/comprehensions.py).
COMPREHENSION_LIST = "__ac_list_"


@handlers.register
def ac_for(
    body: Callable,
    bounds: Sequence[Any],
    carried: Sequence[Any],
    brk: int | None = None,
    *,
    unrolled: bool = False,
) -> tuple:
    """``for i in range(*bounds): carried = body(i, *carried)``, traced as one LOOP node.

    ``brk`` is the position of the ``break`` flag among the carried values, if the body has a
    ``break``: the loop stops after an iteration that sets it. ``unrolled``: a loop that does
    not trace runs as Python, a copy of the body per item (a comprehension's loop,
    frontend/comprehensions.py: what the trace did with the comprehension itself)."""
    try:
        return _for(body, bounds, tuple(carried), brk, peeled=False, first_alone=unrolled)
    except TraceBreak:
        if not unrolled:
            raise
    for name, cell in zip(body.__code__.co_freevars, body.__closure__ or ()):
        if name.startswith(COMPREHENSION_LIST):  # empty when the loop starts
            cell.cell_contents = []
    return _python_for(body, bounds, tuple(carried), brk)


def _for(
    body: Callable,
    bounds: Sequence[Any],
    init: tuple,
    brk: int | None,
    peeled: bool,
    first_alone: bool = False,
) -> tuple:
    if not is_tracing() or (brk is None and unrolls(bounds)):
        return _python_for(body, bounds, init, brk)
    local_lists.adopt(body, current().given, flat=not growing_lists.takes(body, bounds))
    cells = growing_lists.cells(body, bounds)  # before the watch holds their lists too
    with escapes.unchanged(body, "loop body"):
        trace = lambda b, values, names: _trace_loop(
            b, bounds, values, brk, peeled, names, first_alone
        )
        return growing_lists.run_for(body, cells, bounds, init, trace)


def _python_for(body: Callable, bounds: Sequence[Any], init: tuple, brk: int | None) -> tuple:
    values = init
    for i in range(*bounds):
        try:
            values = body(i, *values)
        except Exhausted:  # a stream's iterator ended (trace/iteration.py)
            break
        if brk is not None and values[brk]:
            break
    if is_tracing():
        LS.bound_after(values)
    return values


def ac_while(
    test: Callable, body: Callable, carried: Sequence[Any], brk: int | None = None
) -> tuple:
    """``while test(*carried): carried = body(*carried)``, traced as one LOOP node (never
    unrolled); ``brk`` as for :func:`ac_for`."""
    if not is_tracing():
        values = tuple(carried)
        while test(*values):
            values = body(*values)
            if brk is not None and values[brk]:
                break
        return values
    local_lists.adopt(body, current().given)
    with escapes.unchanged(body, "loop body"):
        return _trace_while(test, body, tuple(carried), brk)


def ac_ndindex(
    body: Callable, shape: Sequence[Any], carried: Sequence[Any], brk: int | None = None
) -> tuple:
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


@handlers.register
def ac_if(test: Any, then_fn: Callable, else_fn: Callable, values: Sequence[Any]) -> tuple:
    """``values = then_fn(*values) if test else else_fn(*values)``; an IF node when ``test``
    is only known at run time."""
    if not _is_runtime_value(test):
        return then_fn(*values) if test else else_fn(*values)
    return trace_if(test, then_fn, else_fn, tuple(values))


@handlers.register
def ac_create(func: Callable, *args: Any, **kwargs: Any) -> Any:
    """``np.zeros(shape)``-style calls from a region body: symbolic while tracing. A list
    argument's items are the array NumPy makes of it (``np.array(xs)``), not an object
    array of traced numbers that ``.sum()`` folds into a Python int."""
    if is_tracing():
        handler = CREATION.get(func)
        if handler is not None:
            return call_function(func, handler, numpy_arrays(args), numpy_arrays(kwargs))
    return func(*args, **kwargs)


# -- loops -------------------------------------------------------------------------------------


def _is_runtime_value(value: Any) -> bool:
    return isinstance(value, SymArray) or (isinstance(value, SymScalar) and value.dynamic)


def _bound(value: Any) -> Node:
    """A range() argument as an int64 node; range() itself raises for floats."""
    if isinstance(value, (bool, float)) or (
        isinstance(value, (SymArray, SymScalar)) and value.node.dtype.kind not in "iub"
    ):
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    node = operand(value).node
    if isinstance(value, SymArray) and value.ndim:
        raise TypeError("only integer scalar arrays can be converted to a scalar index")
    return B.cast_node(node, np.dtype(np.int64))


def _trace_loop(
    body: Callable,
    bounds: Sequence[Any],
    init: tuple,
    brk: int | None,
    peeled: bool,
    names: user_names.BodyNames | None = None,
    first_alone: bool = False,
) -> tuple:
    """``first_alone``: a variable the loop binds (UNBOUND) is read from the second
    iteration on (a comprehension's ``max``, frontend/comprehensions.py), so the first
    iteration is traced on its own, then the loop from the second."""
    ctx = current()
    bounds = tuple(bounds)
    if len(bounds) == 1:
        bounds = (0, bounds[0], 1)
    elif len(bounds) == 2:
        bounds = (bounds[0], bounds[1], 1)
    if isinstance(bounds[2], int) and bounds[2] == 0:
        raise ValueError("range() arg 3 must not be zero")
    bound_nodes = [_bound(b) for b in bounds]
    if not peeled and any(v is None for v in init):  # ``best = None``: see _peel_for
        return _peel_for(body, bounds, bound_nodes, init, brk, peeled)
    if first_alone and not peeled and any(v is UNBOUND for v in init):
        return _peel_for(body, bounds, bound_nodes, init, brk, peeled)

    def step(ivar: Any, values: tuple) -> tuple:
        outs = tuple(body(IB.bounded(ivar, IB.range_bounds(*bounds)), *values))
        return outs, None if brk is None else C.negate(outs[brk])

    traced, kinds = _trace_widening(ctx, step, init, names or user_names.of_for(body))
    init = _unseen_starts(init, kinds, (UNSEEN,))
    if any(v is UNBOUND for v in init):
        starts = LS.typed_starts(init, kinds, bounds, bound_nodes)
        if starts is None:  # an array the first iteration binds: trace that iteration alone
            return _peel_for(body, bounds, bound_nodes, init, brk, peeled)
        init = starts
    if CK.narrowed(kinds, traced.out_kinds) or not CK.start_holds(init, kinds):
        return _peel_for(body, bounds, bound_nodes, init, brk, peeled)
    init_nodes = SG.flat(init, kinds)
    attr = LoopAttr(traced.graph, len(init_nodes), exits=brk is not None)
    return _loop_node(ctx, (*bound_nodes, *init_nodes), traced, attr, kinds)


def _trace_while(
    test: Callable, body: Callable, init: tuple, brk: int | None, peeled: bool = False
) -> tuple:
    ctx = current()

    def step(_: Any, values: tuple) -> tuple:
        outs = tuple(body(*values))
        if brk is None:
            return outs, test(*outs)
        return outs, C.ac_and(C.negate(outs[brk]), lambda: test(*outs))

    traced, kinds = _trace_widening(ctx, step, init, user_names.of_while(body))
    init = _unseen_starts(init, kinds, (UNBOUND, UNSEEN))
    if CK.narrowed(kinds, traced.out_kinds) or not CK.start_holds(init, kinds):
        rest = lambda *values: _trace_while(test, body, values, brk, peeled=True)
        return _first_iteration(test(*init), lambda *v: _then(body(*v), brk, rest), init, peeled)
    init_nodes = SG.flat(init, kinds)
    go = test(*CK.from_nodes(init_nodes, kinds))
    if not _is_runtime_value(go) and not go:
        return init
    attr = LoopAttr(traced.graph, len(init_nodes), exits=True, is_while=True)
    return _loop_node(ctx, (C.truth_node(go), *init_nodes), traced, attr, kinds)


def _unseen_starts(init: tuple, kinds: list, marks: tuple) -> tuple:
    """A ``while`` loop starts a variable UNBOUND, and any loop one UNSEEN, only where a
    ``return`` alone reads it after the loop and the body binds it first
    (frontend/loop_plan.py): a scalar starts as a zero of its kind, which nothing reads."""
    starts = [CK.typed_start(k) if any(v is m for m in marks) else v for v, k in zip(init, kinds)]
    if any(v is UNSEEN for v in init) and any(s is None for s in starts):
        raise TraceBreak(TraceReason.LOOP_CARRIED_TYPE, "an array a return reads runs in Python")
    return init if any(s is None for s in starts) else tuple(starts)


# -- the first iteration on its own, where it changes a carried value's kind (trace/carried.py)


def _peel_for(
    body: Callable, bounds: tuple, bound_nodes: list, init: tuple, brk: int | None, peeled: bool
) -> tuple:
    """``for i in range(a, b, c)`` as its first iteration (with ``i = a`` and the start
    values' own types, as Python runs it), then the loop from ``a + c`` on. A variable that
    starts as None (``best = None``, then ``if best is None or v < best: best = v``) is None
    only there: ``is None`` is Python's own test on it, and from the second iteration on it
    is the number the first gave it (still None after it: the loop runs as Python)."""
    start, stop, step = bounds
    first_i = start
    if not isinstance(start, int):
        first_i = IB.bounded(_runtime_int(bound_nodes[0]), IB.bounds_of(start))
    rest = lambda *values: _for(body, (start + step, stop, step), values, brk, peeled=True)
    must_run = lambda: LS.must_run(bound_nodes, step)
    return _first_iteration(
        LS.runs(bounds), lambda *v: _then(body(first_i, *v), brk, rest), init, peeled, must_run
    )


def _then(outs: Any, brk: int | None, rest: Callable) -> tuple:
    """After the first iteration: the rest of the loop, unless that iteration broke out."""
    outs = tuple(outs)
    if brk is None:
        return rest(*outs)
    return ac_if(C.negate(outs[brk]), rest, lambda *values: values, outs)


def _first_iteration(
    runs: Any,
    first: Callable,
    init: tuple,
    peeled: bool,
    must_run: Callable[[], bool] | None = None,
) -> tuple:
    """``first(*init)`` if the loop runs; ``runs`` is None when only the running code knows,
    and then the variable's type after the loop depends on it (trace/carried.py). A variable
    the loop binds (UNBOUND before it) is bound, and one whose type it changes (``s = 0``
    then ``s = s + x[i]``) has the new type, when it runs at all: ``must_run`` adds the
    run-time check that it does, whose failure runs the plain statements (ir/checks.py)."""
    if peeled:
        raise TraceBreak(
            TraceReason.LOOP_CARRIED_TYPE, "a loop-carried variable keeps changing type"
        )
    if (runs is None or _is_runtime_value(runs)) and must_run and must_run():
        return first(*init)
    if runs is None or _is_runtime_value(runs):
        what = "binds" if any(v is UNBOUND for v in init) else "changes the type of"
        raise TraceBreak(
            TraceReason.LOOP_CARRIED_TYPE,
            f"a loop that may run zero times (its bounds are only known at run time) {what} "
            "a variable",
        )
    if not runs:
        LS.bound_after(init)
    return first(*init) if runs else init


def _runtime_int(node: Node) -> SymScalar:
    return SymScalar(node, 1, "the loop variable", dynamic=True)


def _trace_widening(ctx: Any, step: Callable, init: tuple, names: user_names.BodyNames) -> tuple:
    """Trace the body until the carried values keep their kinds (a Python int that becomes a
    float in the body is a float from the start) and every int taken for a counter is one
    (trace/int_counters.py)."""
    kinds, counters = [CK.kind_of(v) for v in init], counting.starts(init)
    spent = dict(ctx.per_line)
    for _ in range(2 * _RETRACES):
        ctx.per_line = dict(spent)  # only the body kept counts against a line's budget
        traced = _trace_body(ctx, step, kinds, names, counters)
        widened = CK.widened(kinds, traced.out_kinds)
        if widened == kinds and traced.counters == counters:
            return traced, kinds
        kinds, counters = widened, traced.counters
    raise TraceBreak(TraceReason.LOOP_CARRIED_TYPE, "a loop-carried variable keeps changing type")


def _loop_node(ctx: Any, heads: tuple, traced: _Traced, attr: LoopAttr, kinds: list) -> tuple:
    captured = SG.captured(traced.graph, traced.owned)
    loop = ctx.node(Op.LOOP, (*heads, *captured), np.dtype(bool), (), attr)
    ctx.add_effect(loop)
    results = SG.results(ctx, loop, kinds)
    counting.assume(list(results), traced.counters)  # a counter ends where it may have got to
    return results


class _Traced:
    def __init__(self, graph: Graph, owned: set[int], out_kinds: list, counters: dict) -> None:
        self.graph, self.owned, self.out_kinds = graph, owned, out_kinds
        self.counters = counters  # the carried ints that proved counters


def _trace_body(
    ctx: Any, step: Callable, kinds: list, names: user_names.BodyNames, counters: dict
) -> _Traced:
    """Run the body once on placeholders, named as the user's variables (a ``while`` body has
    no induction variable); the nodes it creates form the LOOP's sub-graph."""
    first = SG.next_id()
    inputs, ivar = [], None
    if names.ivar is not None:
        attr = InputAttr(0, names.ivar, InputKind.LOOP_VAR, weak=True)
        ivar_node = ctx.node(Op.INPUT, (), np.dtype(np.int64), (), attr)
        ivar = SymScalar(ivar_node, 1, "the loop variable", dynamic=True)
        inputs.append(ivar_node)
    holders, holder_nodes = CK.placeholders(ctx, kinds, 1, names)
    counting.assume(holders, counters)
    ctx.effect_frames.append([])
    ctx.loop_depth += 1
    try:
        outs, go = step(ivar, tuple(holders))
        go_node = None if go is None else C.truth_node(go)
    except BaseException:  # the loop is traced another way, or not at all
        limits.settle_checks(ctx, ctx.effect_frames[-1], None)
        raise
    finally:
        effects = ctx.effect_frames.pop()
        ctx.loop_depth -= 1
    out_kinds = [CK.kind_of(v) for v in outs]
    out_nodes = SG.flat(outs, [CK.unify(k, ok) for k, ok in zip(kinds, out_kinds)])
    if go_node is not None:
        out_nodes.append(go_node)
    limits.settle_checks(ctx, effects, out_nodes)
    keep_in_body(ctx, effects, out_nodes)
    graph = Graph("loop_body", [*inputs, *holder_nodes], out_nodes, effects)
    owned = {n.id for n in graph.nodes() if n.id >= first}
    return _Traced(graph, owned, out_kinds, counting.verified(holders, outs, counters))
