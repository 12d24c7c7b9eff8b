"""The eager backend: runs a graph op by op with NumPy.

It is the first rung of the troubleshooting ladder (a wrong answer here is a tracer bug, not a
codegen bug) and the reference the native backends are tested against. Views are evaluated with
NumPy's own view operations, so a view that leaves the region aliases its base exactly as in
NumPy, and STORE nodes write through them into the caller's arrays.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from astcompile.ir.attrs import ArithKind
from astcompile.ir.checks import (
    KEEP,
    RunPlain,
    make_error,
    rerun_where_numpy_warns,
    sequence_error,
    size_check_holds,
    size_check_message,
)
from astcompile.ir.graph import (
    ConstAttr,
    DynIndex,
    Graph,
    IfAttr,
    IndexItem,
    LoopAttr,
    Node,
    ReduceAttr,
    SizeCheckAttr,
    own_nodes,
    walk,
)
from astcompile.ir.ops import Kind, Op, info
from astcompile.ir.shapes import Dim, evaluate
from astcompile.runtime import fpflags
from astcompile.targets.eager_errors import raise_at_node

Env = dict[int, Any]


class EvalContext:
    """Per-call state: computed values by node id, and input shapes for symbolic sizes."""

    def __init__(
        self, shapes: Sequence[tuple[int, ...]] | None, leaves: Sequence[Any] = ()
    ) -> None:
        self.values: Env = {}
        self.runtime: dict[int, int] = {}  # RUN sizes met so far (slices with runtime bounds)
        self._shapes = shapes
        self._leaves = leaves

    @property
    def shapes(self) -> Sequence[tuple[int, ...]]:
        """Input shapes, computed only when a symbolic size is needed (off the common path)."""
        if self._shapes is None:
            self._shapes = [np.shape(v) for v in self._leaves]
        return self._shapes

    def dim(self, d: Dim) -> int:
        return evaluate(d, self.shapes, self.runtime)

    def dims(self, ds: Sequence[Dim]) -> tuple[int, ...]:
        return tuple(self.dim(d) for d in ds)


def _const(node: Node, ctx: EvalContext, args: list) -> Any:
    attr: ConstAttr = node.attr
    if attr.weak or isinstance(attr.value, np.ndarray):
        return attr.value  # arrays are captured live: later in-place changes are seen
    return node.dtype.type(attr.value)


def _dim(node: Node, ctx: EvalContext, args: list) -> Any:
    return ctx.dim(node.attr)


def _cast(node: Node, ctx: EvalContext, args: list) -> Any:
    value = args[0]
    if isinstance(value, (bool, int, float, complex)):  # a weak Python scalar: unsafe, as
        return np.asarray(value).astype(node.dtype)[()]  # in C (range checks are CHECK nodes)
    return value.astype(node.dtype, order="C")  # a cast is C-ordered on every target


def _iota(node: Node, ctx: EvalContext, args: list) -> Any:
    """Each element's index along axis ``node.attr``: a fresh array, as np.arange gives."""
    shape = ctx.dims(node.shape)
    axis = node.attr
    line = np.arange(shape[axis], dtype=np.int64)
    line = line.reshape([-1 if a == axis else 1 for a in range(len(shape))])
    return line if line.shape == shape else np.broadcast_to(line, shape).copy()


def _reduce(node: Node, ctx: EvalContext, args: list) -> Any:
    attr: ReduceAttr = node.attr
    fn = info(node.op).numpy
    ndim = np.ndim(args[0])
    if node.op in (Op.ARGMAX, Op.ARGMIN):
        axis = None if len(attr.axes) != 1 or (ndim <= 1 and attr.axes == ()) else attr.axes[0]
        return fn(args[0], axis=axis, keepdims=attr.keepdims)
    axis = None if len(attr.axes) == ndim else attr.axes
    rerun_where_numpy_warns(node, args)
    if node.op in (Op.VAR, Op.STD):
        return fn(args[0], axis=axis, keepdims=attr.keepdims, ddof=attr.ddof)
    if node.op is Op.MEAN and attr.ddof:
        return _mean_less_ddof(args[0], axis, attr)
    return fn(args[0], axis=axis, keepdims=attr.keepdims)


def _mean_less_ddof(x: Any, axis: Any, attr: ReduceAttr) -> Any:
    """The last step of a decomposed ``var``: the sum over ``count - ddof``, as NumPy's
    ``_var`` divides (never below zero). The C wrapper interprets its decomposed graph when a
    call's arrays do not match what it was generated for, so it meets these."""
    x = np.asarray(x)
    total = np.sum(x, axis=axis, keepdims=attr.keepdims)
    count = x.size // max(np.size(total), 1) if x.size else 0
    return np.true_divide(total, max(count - attr.ddof, 0))


def index_key(
    items: Sequence[IndexItem],
    dim: Callable[[Dim], int],
    args: Sequence[Any] = (),
    runtime: dict[int, int] | None = None,
) -> tuple:
    """The Python index tuple that a normalised IndexItem list stands for; DynIndex entries
    take their value from the node's operands ``args`` (``args[0]`` is the indexed array). The
    lengths of "dslice" items are recorded in ``runtime``, for the sizes that refer to them."""
    key: list[Any] = []
    value = lambda b: int(args[b.input]) if isinstance(b, DynIndex) else dim(b)
    axis = 0
    for item in items:
        axis += item.kind != "newaxis"
        if item.kind == "newaxis":
            key.append(None)
        elif item.kind == "int":
            key.append(value(item.start))
        elif item.kind == "dslice":
            bounds = (None if b is None else value(b) for b in (item.start, item.stop))
            key.append(slice(*bounds, item.step))
            size = np.shape(args[0])[axis - 1]
            runtime[item.length.args[0]] = len(range(*key[-1].indices(size)))
        else:
            start, length = dim(item.start), dim(item.length)
            stop = start + length * item.step
            if length == 0:  # a clipped empty slice may start at -1: not "from the end"
                start, stop = 0, 0
            key.append(slice(start, None if stop < 0 else stop, item.step))
    return tuple(key)


def _index(node: Node, ctx: EvalContext, args: list) -> Any:
    view = () if any(item.kind == "int" for item in node.attr) else (...,)  # 0-d: t[...]
    try:
        return args[0][index_key(node.attr, ctx.dim, args, ctx.runtime) + view]
    except IndexError as exc:  # of a list's items: Python's message (ir/checks.py)
        raise sequence_error(node.attr, exc) from None


def _reshape(node: Node, ctx: EvalContext, args: list) -> Any:
    return np.reshape(args[0], ctx.dims(node.attr))


def _transpose(node: Node, ctx: EvalContext, args: list) -> Any:
    return np.transpose(args[0], node.attr)


def _broadcast_to(node: Node, ctx: EvalContext, args: list) -> Any:
    return np.broadcast_to(args[0], ctx.dims(node.attr))


def _copy(node: Node, ctx: EvalContext, args: list) -> Any:
    return np.array(args[0], copy=True, order="C")  # COPY is C-ordered on every target


def _store(node: Node, ctx: EvalContext, args: list) -> Any:
    target, value = args[0], args[1]
    try:
        target[index_key(node.attr.index, ctx.dim, args, ctx.runtime)] = value
    except IndexError as exc:
        raise sequence_error(node.attr.index, exc) from None
    return target


def _size_check(node: Node, ctx: EvalContext, args: list) -> Any:
    """A run-time size check: NumPy would raise the same error at the operation itself."""
    attr: SizeCheckAttr = node.attr
    sizes = [ctx.dim(d) for d in attr.dims]
    if not size_check_holds(attr.kind, sizes):
        raise ValueError(size_check_message(attr.kind, sizes))


def _loop(node: Node, ctx: EvalContext, args: list) -> Any:
    """Run a LOOP's body per iteration; body nodes read enclosing values from ``ctx``."""
    attr: LoopAttr = node.attr
    carried = list(args[attr.heads : attr.heads + attr.carried])
    steps = _sub_plan(attr.body, node)
    if attr.is_while:
        go = bool(args[0])
        while go:
            carried, go = _iterate(steps, ctx, attr, carried)
        return tuple(carried)
    start, stop, step = (int(a) for a in args[:3])
    ivar = attr.body.inputs[0]
    for i in range(start, stop, step):
        ctx.values[ivar.id] = i
        carried, go = _iterate(steps, ctx, attr, carried)
        if not go:
            break
    return tuple(carried)


def _iterate(steps: list[Step], ctx: EvalContext, attr: LoopAttr, carried: list) -> tuple:
    """One iteration: the next carried values, and whether to run another one."""
    for holder, value in zip(attr.holders, carried):
        ctx.values[holder.id] = value
    outs = _run_steps(steps, ctx, attr.body.outputs)
    if attr.exits:
        return outs[:-1], bool(outs[-1])
    return outs, True


def _input(node: Node, ctx: EvalContext, args: list) -> Any:
    """A region input first read inside a loop body or branch (a global like ``DT`` read only
    there): its node sits in that graph, its value was set with the region's other inputs."""
    return ctx.values[node.id]


def _numpy_step(node: Node, ctx: EvalContext, args: list) -> Any:
    """NumPy's own function (np.sort, np.percentile, ...): what the plain code calls."""
    rerun_where_numpy_warns(node, args)
    return node.attr.function()(*args, **dict(node.attr.kwargs))


def _check(node: Node, ctx: EvalContext, args: list) -> Any:
    """``assert`` and Python's own errors on loop values (trace/control.py); KEEP never fails."""
    if node.attr.exception != KEEP and not bool(args[0]):
        raise make_error(node.attr.exception, node.attr.message, *args[1:])
    return None


def _if(node: Node, ctx: EvalContext, args: list) -> Any:
    attr: IfAttr = node.attr
    graph = attr.then_graph if bool(args[0]) else attr.else_graph
    return tuple(_run_steps(_sub_plan(graph, node), ctx, graph.outputs))


_SUB_PLANS: weakref.WeakKeyDictionary[Node, dict[int, list[Step]]] = weakref.WeakKeyDictionary()


def _sub_plan(graph: Graph, owner: Node) -> list[Step]:
    """The steps of ``owner``'s body or branch ``graph``, computed once per graph: an IF inside
    a loop runs every iteration. Graphs are not hashable, so the cache hangs off the node."""
    plans = _SUB_PLANS.setdefault(owner, {})
    if id(graph) not in plans:
        plans[id(graph)] = _steps(own_nodes(graph, owner.inputs))
    return plans[id(graph)]


def _run_steps(steps: list[Step], ctx: EvalContext, outputs: Sequence[Node]) -> list:
    values = ctx.values
    for node_id, rule, node, input_ids in steps:
        values[node_id] = rule(node, ctx, [values[i] for i in input_ids])
    return [values[o.id] for o in outputs]


def _result(node: Node, ctx: EvalContext, args: list) -> Any:
    return args[0][node.attr]


def _numpy_call(node: Node, ctx: EvalContext, args: list) -> Any:
    """The op's NumPy function. ``s * t`` (``-s``) of NumPy scalars is NumPy's scalar operator (ArithKind.SCALAR), which
    multiplies complex values otherwise than its array loops and notes integer overflow;
    np.maximum.at's loop (ArithKind.INDEXED) warns of a NaN it compares, np.maximum does not."""
    if node.attr is ArithKind.SCALAR:
        return _SCALAR_OPERATORS[node.op](*(np.asarray(a)[()] for a in args))
    if node.attr is ArithKind.INDEXED:
        row = np.array([args[0]], node.dtype)
        info(node.op).numpy.at(row, np.zeros(1, np.intp), np.reshape(args[1], 1))
        return row[0]
    return info(node.op).numpy(*args)


_SCALAR_OPERATORS = {Op.MUL: operator.mul, Op.ADD: operator.add, Op.SUB: operator.sub}
_SCALAR_OPERATORS |= {Op.NEG: operator.neg, Op.ABS: operator.abs}


#: op -> how to run it; ops missing here run their registry's NumPy function on the inputs.
_RULES: dict[Op, Callable[[Node, EvalContext, list], Any]] = {
    Op.CONST: _const,
    Op.INPUT: _input,
    Op.DIM: _dim,
    Op.CAST: _cast,
    Op.IOTA: _iota,
    Op.INDEX: _index,
    Op.RESHAPE: _reshape,
    Op.TRANSPOSE: _transpose,
    Op.BROADCAST_TO: _broadcast_to,
    Op.COPY: _copy,
    Op.STORE: _store,
    Op.SIZE_CHECK: _size_check,
    Op.LOOP: _loop,
    Op.IF: _if,
    Op.RESULT: _result,
    Op.CHECK: _check,
    Op.NUMPY: _numpy_step,
    Op.NUMPY_VIEW: _numpy_step,
}


def rule_for(node: Node) -> Callable[[Node, EvalContext, list], Any]:
    if node.op in _RULES:
        return _RULES[node.op]
    if node.kind is Kind.REDUCTION:
        return _reduce
    if info(node.op).numpy is None:
        raise NotImplementedError(f"eager backend has no rule for {node.op.name}")
    return _numpy_call


Step = tuple[int, Callable[[Node, EvalContext, list], Any], Node, tuple[int, ...]]


def plan(graph: Graph) -> list[Step]:
    """The graph's nodes in program order with their rules, computed once per graph (node ids
    follow program order: running in id order keeps reads before later stores)."""
    inputs = {n.id for n in graph.inputs}
    return _steps(n for n in sorted(graph.nodes(), key=lambda n: n.id) if n.id not in inputs)


def _steps(nodes: Iterable[Node]) -> list[Step]:
    return [(n.id, rule_for(n), n, tuple(i.id for i in n.inputs)) for n in nodes]


def run_plan(graph: Graph, steps: list[Step], leaves: Sequence[Any]) -> list:
    ctx = EvalContext(None, leaves)
    for node, value in zip(graph.inputs, leaves):
        ctx.values[node.id] = value
    try:
        return _run_steps(steps, ctx, graph.outputs)
    except Exception as exc:  # the user's error (or RunPlain): see targets/eager_errors.py
        raise_at_node(exc, _run_steps.__code__)
        raise


def run_graph(graph: Graph, leaves: Sequence[Any]) -> list:
    """Evaluate ``graph`` on concrete leaf values; returns the output values."""
    return run_plan(graph, plan(graph), leaves)


_WRITEABLE = np.empty(0).flags  # what a leaf without flags (a device array) counts as


class EagerBackend:
    """Backend "eager": no code generation, the graph is interpreted with NumPy."""

    name = "eager"
    graph_passes = False  # the reference: it runs the graph exactly as traced

    def __init__(self) -> None:
        self.steps = {"wrap": self.wrap}

    def wrap(self, work: Any) -> None:
        """The pipeline's ``wrap`` stage: the interpreter is this target's whole lowering. A
        region whose statements can run again notes NumPy's floating-point errors, not warning
        from this file's line: they run again, NumPy warns from the user's (jit/fp_errors.py)."""
        from astcompile.jit import fp_errors

        run = self.compile(work.graph)
        rerun = work.result is not None and fp_errors.may_rerun(work.result)  # a region's
        work.run = fp_errors.noting_errors(run) if rerun and fpflags.KINDS else run

    def compile(self, graph: Graph) -> Callable[[Sequence[Any]], list]:
        """The graph's interpreter. A call that would store into a read-only argument runs the
        region's own statements: NumPy raises there before it computes the value stored
        (``x += 1`` of a broadcast ``x``), where the graph computes ``x + 1`` first."""
        from astcompile.lower.host_plan import written_arguments

        steps = plan(graph)
        stores = [n.inputs[0] for n in walk(graph.nodes()) if n.op is Op.STORE]
        written = written_arguments(graph, stores) if stores else ()

        def run(leaves: Sequence[Any]) -> list:
            if any(not getattr(leaves[k], "flags", _WRITEABLE).writeable for k in written):
                raise RunPlain("a written argument is read-only")
            return run_plan(graph, steps, leaves)

        return run
