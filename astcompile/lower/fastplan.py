"""A flat region's wrapper as plain data: what the C-level call path runs instead of it.

The generated wrapper (:mod:`astcompile.lower.host`) is Python; the same steps written as
tuples of numbers, dtypes and names (a *fast plan*) let the runtime's C extension
(``runtime/fastcall.c``) do them without a Python frame: check the size facts the wrapper
checks, allocate the outputs, call each kernel's packed entry with the words the launcher would
pass, return the outputs. A plan exists only for wrappers made of kernel calls on arguments
the guard key assures (ndarrays of the node's dtype and rank), real scalars, sizes read as
values (``x * x.shape[0]``, ``len(x)``: the kernel's word is the size expression the wrapper
binds) and fresh or reused outputs and views returned of them; anything else (another NumPy
step, a constant array, a strided argument) keeps the region on its Python wrapper. Plain data so that the warm cache persists
it with the wrapper, and so that the runtime reads it without the compiler.

Size expressions: ``("k", n)`` a number, ``("d", k, a)`` axis ``a`` of leaf ``k``,
``(op, x, y)`` with ``op`` one of ``+ - * // % max``.

A view of an argument or of an array the plan allocates (``y[::2]``, ``y.T``, ``y.real``,
``np.broadcast_to(y, s)``), returned or read by a kernel (``x[1:] - x[:-1]``), is a
``("view", ref, of, kind, items)`` step (:func:`view_step`): the C path makes it as NumPy
does (strides, flags, ``.base``), before any kernel runs, so that a view it cannot make
leaves the call to the Python path unrun. A ``("unit", uref, ref, itemsize)`` step names
``uref`` the array ``ref`` with a unit last stride, as a kernel reads it (``x[::2]``, ``a.T``,
``z.real``): itself, or a C-ordered copy made where the wrapper makes its copy, just before the
first kernel that reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from astcompile.ir.attrs import IndexItem, IndexKind
from astcompile.ir.graph import Graph, InputKind, Node
from astcompile.ir.ops import Op
from astcompile.ir.shapes import DimOp, SymDim
from astcompile.passes.schedule import Kernel, Schedule

_OPS = {
    DimOp.ADD: "+",
    DimOp.SUB: "-",
    DimOp.MUL: "*",
    DimOp.FLOORDIV: "//",
    DimOp.MOD: "%",
    DimOp.MAX: "max",
}


class NoFastPlan(Exception):
    """The wrapper does something a fast plan cannot say: the region keeps its wrapper."""


def dim_plan(d: Any) -> tuple:
    """The size expression of a dimension (see the module docstring)."""
    if isinstance(d, int):
        return ("k", d)
    if not isinstance(d, SymDim):
        raise NoFastPlan(f"size {d!r}")
    if d.op is DimOp.SYM:
        return ("d", *d.source)
    if d.op not in _OPS:
        raise NoFastPlan(f"a {d.op.value} size")
    a, b = (dim_plan(x) for x in d.args)
    return (_OPS[d.op], a, b)


def product(items: Sequence[tuple]) -> tuple:
    """The size expression of a product (1 for none)."""
    if not items:
        return ("k", 1)
    out = items[0]
    for item in items[1:]:
        out = ("*", out, item)
    return out


def fresh_strides(node: Node) -> list[tuple]:
    """Byte strides of a fresh C-ordered output, from its shape (as the wrapper computes them)."""
    item = ("k", node.dtype.itemsize)
    shape = [dim_plan(d) for d in node.shape]
    return [("e", product([item, *shape[a + 1 :]])) for a in range(len(shape))]


def size_facts(graph: Graph) -> list[tuple[int, int, Any]]:
    """(input, axis, size) of each size fact the trace relied on, which the wrapper checks: an
    array axis of a known size, or of a size an earlier axis (the first with it) defines."""
    facts, defined = [], set()
    for k, node in enumerate(graph.inputs):
        if node.attr.input_kind is InputKind.SCALAR:
            continue
        for a, d in enumerate(node.shape):
            sym = isinstance(d, SymDim) and d.op is DimOp.SYM
            if sym and d.source == (k, a):
                defined.add((k, a))
            elif not sym or d.source in defined:
                facts.append((k, a, d))
    return facts


def size_conditions(graph: Graph, minmax: list[tuple[Kernel, tuple, tuple]]) -> list[tuple]:
    """The wrapper's size checks (``size_facts``) as ``("eq", x, y)`` and
    ``("rows", inner, rows)`` (a max/min kernel's rows are not empty, or there are none)."""
    conds = [("eq", ("d", k, a), dim_plan(d)) for k, a, d in size_facts(graph)]
    if any(inner is None for _, inner, _ in minmax):
        raise NoFastPlan("a max/min kernel with sizes a plan cannot say")
    conds += [("rows", inner, rows) for _, inner, rows in minmax]
    return conds


def region_plan(
    sched: Schedule, typed: frozenset[int], calls: list[tuple] | None, minmax: list
) -> dict | None:
    """The fast plan of a flat region's wrapper, or None when it has none. Its NumPy steps
    may only be the views it returns; they are made before the first kernel runs."""
    graph = sched.graph
    if calls is None:
        return None
    inputs = []
    for k, node in enumerate(graph.inputs):
        if node.attr.index != k:
            return None
        if node.attr.input_kind is InputKind.SCALAR:
            inputs.append(("scalar",))
        elif node.attr.input_kind is InputKind.ARRAY and node.id in typed:
            inputs.append(("array", len(node.shape)))
        else:
            return None
    produced = {c[1] for c in calls if c[0] in ("empty", "alias")}
    views: dict[tuple, tuple] = {}  # ref -> the step that makes a view returned or read
    steps = [s.node for s in sched.steps if not isinstance(s, Kernel)]
    try:
        outputs = [_output_ref(node, produced, views) for node in graph.outputs]
        for node in steps:  # a view a kernel reads (x[1:] - x[:-1])
            if node.op in VIEW_KINDS:
                _output_ref(node, produced, views)
        conds = size_conditions(graph, minmax)
    except NoFastPlan:
        return None
    if {("v", node.id) for node in steps} != views.keys():  # a NumPy step that is no view
        return None
    # allocations, the views of them and of arguments, then the kernels (each after the
    # copies it reads, made once the kernels before it ran)
    first = ("empty", "alias")
    calls = [
        *(c for c in calls if c[0] in first),
        *views.values(),
        *(c for c in calls if c[0] not in first),
    ]
    return {
        "inputs": tuple(inputs),
        "conds": tuple(conds),
        "calls": tuple(calls),
        "outputs": tuple(outputs),
    }


def _output_ref(node: Node, produced: set[tuple], views: dict[tuple, tuple]) -> tuple:
    """A flat plan's name for an output: an argument, a kernel's output, or a view of one
    (its step put in ``views``)."""
    if node.op is Op.INPUT:
        return ("in", node.attr.index)
    if ("t", node.id) in produced:
        return ("t", node.id)
    if node.op not in VIEW_KINDS:
        raise NoFastPlan(f"output {node!r}")
    ref = ("v", node.id)
    of = _output_ref(node.inputs[0], produced, views)
    views.setdefault(ref, view_step(node, ref, of))
    return ref


#: The views a plan's ``view`` step makes, by kind (``runtime/fastcall_views.c``).
VIEW_KINDS = {
    Op.INDEX: "index",
    Op.TRANSPOSE: "transpose",
    Op.REAL: "real",
    Op.IMAG: "imag",
    Op.BROADCAST_TO: "broadcast",
    Op.RESHAPE: "reshape",
}
#: The most axes the C path's views have (``MAX_DIMS`` of ``fastcall.c``).
MAX_VIEW_AXES = 32


def keeps_unit_stride(node: Node) -> bool:
    """Whether view ``node`` (of views of an argument or of a fresh array) may have the item
    size as its last stride, having its base's on its last axis: a step-1 slice of the base's
    last axis or that axis untouched, a reshape (of a C-contiguous base), a transpose that
    keeps the last axis, ``.real`` of a real array. Another (``x[::2]``, ``a.T``, ``z.real``)
    never has the item size there, so the kernels read it with its strides (lower/plan.py)
    rather than have it copied."""
    if node.op not in VIEW_KINDS:  # an argument (the plan's unit check tells) or a fresh array
        return True
    base = node.inputs[0]
    if node.op is Op.INDEX:
        items = list(node.attr)
        taken = [i for i in items if i.kind is not IndexKind.NEWAXIS]
        if len(taken) == base.ndim:  # an item covers the last axis: a step-1 slice, last
            last = taken[-1] if taken else None
            if last is None or last is not items[-1] or last.kind is not IndexKind.SLICE:
                return False
            return last.step == 1 and keeps_unit_stride(base)
    elif node.op is Op.TRANSPOSE:
        if not node.attr or node.attr[-1] != len(node.attr) - 1:
            return False
    elif node.op in (Op.BROADCAST_TO, Op.IMAG) or (node.op is Op.REAL and base.dtype.kind == "c"):
        return False
    return keeps_unit_stride(base)


def view_step(node: Node, ref: tuple, of: tuple) -> tuple:
    """The step that makes ``node``, a view of the array the plan names ``of``, as ``ref``:
    a static index (not one that makes a NumPy scalar), transpose, ``.real``/``.imag``,
    ``np.broadcast_to`` or a reshape."""
    kind = VIEW_KINDS.get(node.op)
    if kind is None or max(node.ndim, node.inputs[0].ndim) > MAX_VIEW_AXES:
        raise NoFastPlan(f"view {node!r}")
    items: tuple = ()
    if kind == "index":
        if node.ndim == 0 and any(i.kind is IndexKind.INT for i in node.attr):
            raise NoFastPlan("an index that makes a NumPy scalar")
        items = tuple(_index_item(i) for i in node.attr)
    elif kind == "transpose":
        items = tuple(node.attr)
    elif kind in ("broadcast", "reshape"):
        items = tuple(dim_plan(d) for d in node.attr)
    return ("view", ref, of, kind, items)


def _index_item(item: IndexItem) -> tuple:
    if item.kind is IndexKind.NEWAXIS:
        return ("newaxis",)
    if item.kind is IndexKind.INT:
        return ("int", dim_plan(item.start))
    if item.kind is not IndexKind.SLICE:
        raise NoFastPlan("an index known only at run time")
    return ("slice", dim_plan(item.start), dim_plan(item.length), item.step)
