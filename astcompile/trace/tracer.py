"""Tracing: run a region's body once with symbolic arguments and record the graph.

The arguments are flattened into *leaves* (arrays and numeric scalars), each becoming an INPUT
node; other values (bools, None, strings, tuples' structure) are passed through as constants and
are part of the guard key. The body's results are flattened the same way, into graph outputs
plus a template that rebuilds the Python structure (tuples, scalars, pass-through arguments).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.graph import Graph, InputAttr, InputKind, Node
from astcompile.ir.ops import Kind, Op
from astcompile.ir.results import LEAF_TYPES, Box, OutKind, OutSpec, TraceResult, is_leaf
from astcompile.ir.shapes import RuntimeSizeUsed
from astcompile.runtime import pylists
from astcompile.runtime.memory_order import known_ranks, whole_items
from astcompile.runtime.reads import Read, ReadKind
from astcompile.trace import escapes, int_bounds, limits, lists, optionals, unread_values
from astcompile.trace.context import TraceBreak, TraceContext, location_in_traceback
from astcompile.trace.control import require_no_stores
from astcompile.trace.inlined_loops import cell_index
from astcompile.trace.masks import MaskedValue
from astcompile.trace.nodes import check_dtype, index_shape
from astcompile.trace.reads import ReadRecorder, is_read_stand_in
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, operand

__all__ = ["LEAF_TYPES", "OutSpec", "TraceResult", "flatten", "is_leaf", "trace", "trace_callable"]


def flatten(values: Sequence[Any]) -> list[Any]:
    """Leaves of nested tuples/lists, depth first (the order INPUT nodes get)."""
    leaves: list[Any] = []
    for value in values:
        if type(value) in (tuple, list):
            leaves.extend(flatten(value))
        elif is_leaf(value):
            leaves.append(value)
    return leaves


class _Inputs:
    """Turns concrete leaves into symbolic ones, sharing one symbol per size class."""

    def __init__(self, ctx: TraceContext, dynamic: frozenset[int] = frozenset()) -> None:
        self.ctx = ctx
        self.dynamic = dynamic  # leaf indices traced as run-time scalars (see Region._compile)
        self.symbols: dict[int, S.Dim] = {}
        self.by_id: dict[int, Any] = {}
        self.names: list[str] = []

    def _dim(self, size: int, leaf: int, axis: int, name: str) -> S.Dim:
        if size < 2:
            return size
        if size not in self.symbols:
            self.symbols[size] = S.symbol(f"{name}_{axis}", size, (leaf, axis))
        return self.symbols[size]

    def leaf(self, value: Any, name: str) -> Any:
        if id(value) in self.by_id and isinstance(value, np.ndarray):
            return self.by_id[id(value)]
        index = len(self.names)
        self.names.append(name)
        symbolic = self._make(value, index, name)
        self.by_id[id(value)] = symbolic
        return symbolic

    def _make(self, value: Any, index: int, name: str) -> Any:
        if isinstance(value, (int, float, complex)) and not isinstance(value, np.generic):
            dtype = np.result_type(value)
            if dtype.kind == "O":  # an int past 64 bits: no target holds it (eager cast it)
                int_bounds.beyond_int64(value)
            node = self._input(index, name, InputKind.SCALAR, dtype, (), weak=True)
            if index in self.dynamic:
                scalar = SymScalar(node, value, name, dynamic=True)
            else:
                scalar = SymScalar(node, value, name, sources={index: value})
                scalar.leaf = index
            if isinstance(value, int):  # any int of its guard class (runtime/guards.py)
                scalar.bounds = int_bounds.bounds_of_class(value)
            return scalar
        if type(value) is not np.ndarray and not isinstance(value, np.generic):
            raise TraceBreak(
                TraceReason.UNSUPPORTED_ARGUMENT, f"{name} is a {type(value).__name__}"
            )
        dtype = check_dtype(value.dtype)
        shape = tuple(self._dim(int(d), index, a, name) for a, d in enumerate(np.shape(value)))
        kind = InputKind.SCALAR if isinstance(value, np.generic) else InputKind.ARRAY
        symbolic = SymArray(
            self._input(index, name, kind, dtype, shape), isinstance(value, np.generic)
        )
        symbolic.is_input = True
        symbolic.c_contiguous = isinstance(value, np.generic) or value.flags.c_contiguous
        if kind is InputKind.ARRAY:  # what the guard key's layout holds
            if not whole_items(value):  # its key's layout is "P" (runtime/memory_order.py)
                raise TraceBreak(
                    TraceReason.UNSUPPORTED_ARGUMENT,
                    f"{name} has a stride that is no whole number of items (a structured field)",
                )
            symbolic.ranks = known_ranks(value)
        return symbolic

    def _input(
        self,
        index: int,
        name: str,
        kind: InputKind,
        dtype: np.dtype,
        shape: tuple,
        weak: bool = False,
    ) -> Node:
        node = self.ctx.node(Op.INPUT, (), dtype, shape, InputAttr(index, name, kind, weak))
        self.ctx.inputs.append(node)
        return node


_EXACT_LEAVES = (np.ndarray, int, float, complex)  # the leaves that guard keys key as leaves


class _Later:
    """An object argument, seen through ``reads`` once every argument leaf is an input: the
    leaves a call passes are the arguments' then the reads' (jit/leaves.py), so a leaf read
    from an object (a partial's bound argument) must not be numbered before an array argument
    after it."""

    def __init__(self, path: tuple, value: Any) -> None:
        self.path, self.value = path, value


def _seen_later(value: Any, reads: ReadRecorder) -> Any:
    """``value`` with each :class:`_Later` in it seen through ``reads``, in argument order."""
    if type(value) is _Later:
        return reads.see(value.path, value.value)
    if type(value) in (tuple, list):
        return type(value)([_seen_later(v, reads) for v in value])
    return value


def _symbolize(value: Any, name: str, inputs: _Inputs, reads: ReadRecorder, path: tuple) -> Any:
    """What the trace sees for argument ``value``: leaves become inputs; objects, dicts and
    user functions are seen through ``reads`` (after every argument leaf: :class:`_Later`) so
    what the region reads from them is recorded; strings, bools and None stay themselves (the
    guard key holds their values)."""
    if type(value) in (tuple, list):
        items = [
            _symbolize(v, f"{name}_{i}", inputs, reads, path + (("item", i),))
            for i, v in enumerate(value)
        ]
        return type(value)(items)
    kind = type(value)
    if is_leaf(value) and (kind in _EXACT_LEAVES or isinstance(value, np.generic)):
        symbolic = inputs.leaf(value, name)
        if kind is np.ndarray:
            reads.note_argument(path, value, symbolic)
        return symbolic
    if is_leaf(value):  # a subclass (matrix, masked array, IntEnum): its own methods, its key
        raise TraceBreak(TraceReason.UNSUPPORTED_ARGUMENT, f"{name} is a {kind.__name__}")
    if value is None or type(value) in (bool, str):
        return value
    return _Later(path, value)


def _array_box(value: SymArray) -> Box:
    """A NumPy scalar, a 0-d array (backends may compute it as a scalar: boxed back into an
    array, as ``np.squeeze`` or ``x[0, ...]`` return one), or any other array."""
    if value.is_scalar:
        return Box.SCALAR
    if value.node.ndim == 0 and _views_an_argument(value):
        # NumPy returns a view that writes reach; a boxed scalar would be a copy
        raise TraceBreak(
            TraceReason.ZERO_D_VIEW,
            "a 0-d view of an argument (np.squeeze(x), "
            "x[0, ...]) leaves the region; it runs in NumPy, so it stays a view",
        )
    return Box.ZERO_D if value.node.ndim == 0 else Box.ARRAY


def _views_an_argument(value: SymArray) -> bool:
    while value.view_of is not None:
        value = value.view_of
    return value.is_input


class _Outputs:
    def __init__(self, ctx: TraceContext, watch: escapes.Watch, args: Sequence[Any]) -> None:
        self.ctx = ctx
        self.watch = watch
        # a list argument the trace saw as a list of its items: returned unchanged, it is the
        # caller's list itself (``return params``), not a new list of the same items
        self.arguments = {id(a): (i, list(a)) for i, a in enumerate(args) if type(a) is list}
        self.nodes: list[Node] = []
        self.lists: set[int] = set()
        self.carried_lists = 0
        #: id of a traced number returned -> its spec: returned twice (``return s, s``), it
        #: is one graph output the call boxes once, so both are one object as in plain code
        self.numbers: dict[int, OutSpec] = {}

    def _graph(self, node: Node, box: Any) -> OutSpec:
        self.nodes.append(node)
        return OutSpec(OutKind.GRAPH, len(self.nodes) - 1, box)

    def _list(self, value: lists.SymList) -> OutSpec:
        """A list the region made, handed back as a new Python list of its items (once: two
        names of one list would become two lists)."""
        if id(value) in self.lists:
            raise TraceBreak(
                TraceReason.UNSUPPORTED_OUTPUT, "a list made in the region leaves it twice"
            )
        self.lists.add(id(value))
        if value.array.node.op is Op.RESULT:  # carried through a loop or an if
            self.carried_lists += 1
            if self.carried_lists > 1:  # two names may be one list: Python returns it twice
                raise TraceBreak(
                    TraceReason.UNSUPPORTED_OUTPUT,
                    "two lists a loop or an if carried leave the region (they may be one list)",
                )
        box = Box.ITEMS if value.item in lists.NUMPY_ITEMS else Box.LIST
        if value.growth is None:
            return self._graph(value.array.node, box)
        length = self._graph(operand(value.growth.size).node, Box.ZERO_D).index
        return self._graph(value.array.node, (box, length))

    def spec(self, value: Any) -> Any:
        position, items = self.arguments.get(id(value), (None, None))
        if position is not None and _same_items(value, items):
            return OutSpec(OutKind.ARG, position)
        if type(value) in (tuple, list):
            return type(value)(self.spec(v) for v in value)
        if type(value) is lists.SymList:
            if value.position is None and value.owner is value:  # made in the region
                return self._list(value)
            return lists.output(value)
        if id(value) in self.numbers:
            return self.numbers[id(value)]
        spec = self._value(value)
        if isinstance(spec, OutSpec) and spec.kind == "graph" and spec.box != "array":
            self.numbers[id(value)] = spec
        return spec

    def _value(self, value: Any) -> Any:
        if optionals.is_optional(value):  # None where its flag holds
            flag_index = self._graph(value.flag.node, Box.ZERO_D).index
            number = self._value(value.value)
            if not (isinstance(number, OutSpec) and number.kind == OutKind.GRAPH):
                raise TraceBreak(TraceReason.UNSUPPORTED_OUTPUT, "a variable that may be None")
            return OutSpec(OutKind.GRAPH, number.index, (Box.OPTIONAL, number.box, flag_index))
        if isinstance(value, SymArray) and value.python is not None:  # trace/unions.py
            python, flag = value.python
            flag_index = self._graph(flag.node, Box.ZERO_D).index
            return self._graph(value.node, (Box.PYTHON, python, flag_index))
        if isinstance(value, SymArray):
            if value.is_input and value.node.op is Op.INPUT:
                return OutSpec(OutKind.LEAF, value.node.attr.index)
            return self._graph(value.node, _array_box(value))
        if isinstance(value, SymScalar):
            if value.node.op is Op.INPUT and value.node.attr.weak:  # a Python number's leaf:
                return OutSpec(OutKind.LEAF, value.node.attr.index)  # float(f) is f, as plain
            # a NumPy scalar's (``float(np.float64(2.5))``): a new Python number, boxed
            return self._graph(value.node, type(value.hint))
        if isinstance(value, SymInt):
            return self._graph(value.as_node(), int)
        if is_read_stand_in(value):
            raise TraceBreak(
                TraceReason.UNSUPPORTED_OUTPUT,
                "a Python object the region read leaves it; the region runs in NumPy",
            )
        if isinstance(value, MaskedValue):
            raise TraceBreak(
                TraceReason.BOOLEAN_MASK,
                "a boolean-mask selection has a data-dependent "
                "length; it leaves the region only as a NumPy array",
            )
        return escapes.constant(value, self.watch.is_given)


def _same_items(value: list, items: list) -> bool:
    return len(value) == len(items) and all(a is b for a, b in zip(value, items))


def _error_while_tracing(kind: str, _flag: int) -> None:
    """A floating-point error in NumPy code the trace runs on real values (``np.float32(1e38)
    * 10``, not a traced one): its value would be baked into the graph and NumPy's warning (or
    error, by the caller's error state) lost, so the statement runs plain."""
    raise TraceBreak(TraceReason.NOT_SUPPORTED, f"{kind} in a value computed while tracing")


def trace(
    fn: Callable,
    args: Sequence[Any],
    names: Sequence[str],
    graph_name: str,
    dynamic: frozenset[int] = frozenset(),
    root: Callable | None = None,
    observed: dict | None = None,
) -> TraceResult:
    """Trace ``fn(*args)``; ``names`` are the parameter names (for readable graphs and code).
    The Python scalars at leaf indices ``dynamic`` are run-time values, never specialised.

    ``root`` is the user's function ``fn`` was built from (a region body shares its globals and
    closure cells): what ``fn`` reads from them, and from objects among ``args``, is recorded
    as the result's ``reads`` (see trace/reads.py), and the values found at their paths into
    ``observed``, where given."""
    ctx = TraceContext(graph_name)
    with ctx:
        inputs = _Inputs(ctx, dynamic)
        reads = ReadRecorder(inputs.leaf, tuple(names), tuple(args))
        typed = pylists.classify(tuple(args))
        symbolic_args = [
            _symbolize(a, n, inputs, reads, (("arg", i),))
            if i not in typed
            else _typed_list(a, typed[i], n, i, inputs)
            for i, (a, n) in enumerate(zip(args, names))
        ]
        symbolic_args = [_seen_later(a, reads) for a in symbolic_args]
        # the safety net for changes made behind the stand-ins' backs: the real objects
        watch = escapes.Watch([*symbolic_args, *args, *escapes.read_by(fn)])
        ctx.given = watch.is_given
        if root is not None:  # the body was made from root's code: it must still be root's
            reads.record(Read((("fn",), ("code",)), ReadKind.IDENTITY, root.__code__))
            fn = reads.function(fn, (("fn",),), cell_index(fn, root))
        try:
            with np.errstate(all="call", call=_error_while_tracing):
                result = fn(*symbolic_args)
        except RuntimeSizeUsed as exc:  # the IR's word for it, a break at the user's line
            watch.undo()
            where = location_in_traceback(exc.__traceback__)
            raise TraceBreak(TraceReason.RUNTIME_SIZE, str(exc), where) from None
        except BaseException:  # its own break names the user's line; changes are undone
            watch.undo()
            raise
        watch.check()
        require_no_stores(ctx, ctx.effect_frames[0])
        outputs = _Outputs(ctx, watch, symbolic_args)
        template = outputs.spec(result)
        limits.keep_unread_checks(ctx, outputs.nodes)
        unread_values.keep_unread(ctx, outputs.nodes)
    graph = Graph(
        graph_name, list(ctx.inputs), outputs.nodes, ctx.effect_frames[0], list(ctx.env.guards)
    )
    if observed is not None:
        observed.update(reads.observed)
    written = lists.written([a for a in symbolic_args if type(a) is lists.SymList])
    return TraceResult(
        graph, template, list(ctx.value_guards), inputs.names, tuple(reads.reads), written
    )


def _typed_list(value: list, found: tuple | str, name: str, position: int, inputs: _Inputs) -> Any:
    """A list argument runtime/pylists.py classified: a typed list, or a break saying why not."""
    if type(found) is str:
        lists.refuse(found, name)
    return lists.argument(value, found, name, position, inputs.leaf)


def trace_callable(fn: Callable, args: Sequence[Any]) -> Graph:
    """The graph of ``fn(*args)`` for tests and benchmarks of backends."""
    names = [f"arg{i}" for i in range(len(args))]
    with contextlib.suppress(TypeError, ValueError):
        names = list(inspect.signature(fn).parameters)[: len(args)]
    return trace(fn, args, names, getattr(fn, "__name__", "graph")).graph


def scalar_only(graph: Graph) -> bool:
    """A graph that touches O(1) elements (scalar arithmetic, element reads ``x[i]``, element
    stores ``out[i] = v``) and has no loop or branch: Python runs it faster than a call into
    compiled code can (the call alone costs microseconds). Typical of a loop left in Python."""
    for node in graph.nodes():
        if node.kind is Kind.CONTROL:
            return False
        if node.op is Op.INPUT:
            continue
        if node.op is Op.STORE:
            target, value = node.inputs[:2]
            if index_shape(target.shape, node.attr.index) != () or value.shape != ():
                return False
        elif node.shape != ():
            return False
        elif node.op is not Op.INDEX and any(i.shape != () for i in node.inputs):
            return False  # a scalar from a whole array (``x.mean()``): O(n) work
    return True
