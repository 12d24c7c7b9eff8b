"""C for structured graphs: one function per region holding its loops, branches and stores.

The emitter walks the region's loop schedule (:mod:`~astcompile.lower.loop_schedule`): one
C writer per statement type (:data:`STATEMENTS`), in program order. Scalars are C locals computed at their
position. Arrays in memory are :class:`~astcompile.targets.c.views.View` s; other arrays are lazy
and fused, element by element, into the loop nest of whoever consumes them (a store, a
reduction, a buffer, a loop-carried value). Every buffer is allocated by the Python wrapper
(sizes never depend on a loop variable), so the C function never allocates. Errors (an index
out of bounds, ``range`` step 0) return a nonzero code and details in ``err``; the wrapper
raises NumPy's exception.

A user loop runs on threads only when its iterations are provably independent
(:mod:`~astcompile.lower.independence`; pragmas: :mod:`.structured_parallel`).
Element loops are independent by construction: a store that might read what it writes goes
through a temporary first, so they use ``omp simd`` and, when large, a team of threads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from astcompile.ir.graph import (
    Graph,
    InputAttr,
    InputKind,
    Node,
    SizeCheckAttr,
)
from astcompile.ir.ops import Kind, Op
from astcompile.ir.shapes import Dim, store_checks, upper_bound
from astcompile.lower import loop_schedule as ls
from astcompile.lower.dead_fills import dead_fills
from astcompile.lower.ids import nid
from astcompile.lower.index_ranges import Bounds, indexed_shape
from astcompile.lower.loop_schedule import build_schedule
from astcompile.lower.names import describe, value_name
from astcompile.lower.names import location as loc
from astcompile.lower.operands import Operand
from astcompile.lower.structured_plan import StructPlan, StructuredUnsupported, plan_structured
from astcompile.targets.c import structured_checks as index_checks
from astcompile.targets.c import structured_control as control
from astcompile.targets.c import structured_parallel as parallel
from astcompile.targets.c.c_rules import can_cast, cast, lower
from astcompile.targets.c.c_target import C
from astcompile.targets.c.ctypes import ctype, literal
from astcompile.targets.c.structured_numpy import call_c
from astcompile.targets.c.structured_reduce import LoopReductions
from astcompile.targets.c.structured_signals import (
    compared,
    compares_may_signal,
    scalar_lower,
    signalling,
)
from astcompile.targets.c.structured_tables import table_decl
from astcompile.targets.c.views import (
    View,
    broadcast_index,
    broadcast_strides,
    contiguous_strides,
    dim_c,
    index_index,
    index_view,
    part_view,
    shape_c,
    transpose_view,
)


@dataclass
class Alloc:
    """A buffer the wrapper allocates with ``np.empty`` and passes as ``name``."""

    name: str
    shape: tuple[Dim, ...]
    dtype: np.dtype
    node: Node | None = None


@dataclass
class Emitter(LoopReductions):
    plan: StructPlan
    schedule: ls.Schedule
    lines: list[str] = field(default_factory=list)
    depth: int = 1
    views: dict[int, View] = field(default_factory=dict)
    allocs: list[Alloc] = field(default_factory=list)
    memo: dict[tuple, str] = field(default_factory=dict)  # emptied by each nest
    made: int = 0  # locals named so far: a name is never made twice in one function
    loads: list[tuple[frozenset, str]] | None = None
    #: a returned carried array -> (its C origin variable, the arrays it may end as, the bias
    #: from that variable to an index into them): the wrapper returns that very array
    selectors: dict[int, tuple[str, tuple[Node | str, ...], int]] = field(default_factory=dict)
    written: set = field(default_factory=set)  # alias ids of everything a store may write
    checks: list[tuple[str, str]] = field(default_factory=list)  # CHECKs: (exception, message)
    sites: list[tuple[str, int]] = field(default_factory=list)  # error sites: (file, line)
    #: size conditions both wrappers check first, as the fast plan says them: ("eq", a, b)
    #: for a == b, ("rows", n, 1) for n != 0 (lower/fastplan.py), a and b dimensions
    sizes: list[tuple] = field(default_factory=list)
    ranges: dict[int, Bounds] = field(default_factory=dict)  # loop variables' index bounds
    direct: dict[tuple[int, int], str] = field(default_factory=dict)  # unchecked indices' C
    exits: int = 0  # statements emitted that may return an error status
    loops: int = 0  # C loops opened
    inside: int = 0  # user loops around the statement being emitted
    inner: tuple[int, ...] = ()  # the axes the reduction being emitted folds
    extent: tuple[Dim, ...] = ()  # the shape of what it folds
    tables: dict[int, str] = field(default_factory=dict)  # array constant id -> its C table
    #: arguments whose guard key assures a unit last stride (``Assured.unit_c``, lower/host.py)
    unit_c: frozenset[int] = frozenset()
    unfilled: frozenset[int] = frozenset()  # buffers whose fill no one reads (lower/dead_fills.py)
    signalling: bool = False  # floats compare with C's < (structured_signals.py)
    #: ``loops`` when the innermost user loop that runs scalar opened (a ``while``, or a loop
    #: around one): compares emitted before another loop opens are scalar (structured_signals)
    scalar_loops: int = -1

    def block(self, stmts: tuple[ls.Stmt, ...]) -> None:
        """Emit one block of the loop schedule (:mod:`~astcompile.lower.loop_schedule`)."""
        for stmt in stmts:
            self.inside = stmt.around
            STATEMENTS[type(stmt)](self, stmt)

    def assign(self, stmt: ls.Assign) -> None:
        """A scalar local: an element read from memory, or computed."""
        node = stmt.node
        expr = self.view(node).at([]) if stmt.reads else self.compute(node, [])
        self.emit(f"const {ctype(node.dtype)} {value_name(node)} = {expr};{loc(node)}")

    def reduce(self, stmt: ls.Reduce) -> None:
        if stmt.into_buffer:
            self.materialise(stmt.node)
        else:
            self.reduction(stmt.node, None)

    # -- values -----------------------------------------------------------------------------
    def scalar(self, node: Node) -> str:
        if node.op is Op.CONST:
            return literal(node.attr.value, node.dtype)
        return value_name(node)

    def operand(self, src: Node, expr: str) -> Operand:
        if src.op is Op.CONST and src.shape == ():  # an array constant is read from its table
            return Operand("", src.dtype, src.attr.weak, src.attr.value)
        weak = isinstance(src.attr, InputAttr) and src.attr.weak
        return Operand(expr, src.dtype, weak)

    def element(self, node: Node, idx: list[str]) -> str:
        """C for element ``idx`` of ``node``; lazy values become locals of the current nest."""
        if self.plan.is_scalar(node):
            return self.scalar(node)
        if self.plan.rooted(node):
            view = self.view(node)
            if self.loads is not None:
                self.loads.append((view.alias, view.at(idx)))
            return view.at(idx)
        if node.op in _VIEW_INDEX:
            return self.element(node.inputs[0], _VIEW_INDEX[node.op](self, node, idx))
        key = (node.id, tuple(idx))
        if key not in self.memo:
            name, self.made = f"v{nid(node)}_{self.made}", self.made + 1
            self.emit(f"const {ctype(node.dtype)} {name} = {self.compute(node, idx)};{loc(node)}")
            self.memo[key] = name
        return self.memo[key]

    def compute(self, node: Node, idx: list[str]) -> str:
        """The C expression of an elementwise node (or of the value of a view) at ``idx``."""
        if node.op in _VIEW_INDEX:
            return self.element(node.inputs[0], _VIEW_INDEX[node.op](self, node, idx))
        if node.op is Op.DIM:
            return dim_c(node.attr)
        if node.op is Op.IOTA:
            return lower(node, [Operand(idx[node.attr], node.dtype)])
        if node.op is Op.CONST:
            return self.table(node).at(idx)
        if node.op is Op.NUMPY:  # only what C's in_loops takes
            return call_c(self, node)
        ops = [
            self.operand(s, self.element(s, broadcast_index(s.shape, node.shape, idx)))
            for s in node.inputs
        ]
        if self.signalling or self.scalar_loops != self.loops:
            return signalling(node, ops) if self.signalling else lower(node, ops)
        return scalar_lower(node, ops, [self.element(s, []) for s in compared(node)])

    def table(self, node: Node) -> View:
        """An array constant as a ``static const`` C table (declared at the function's top,
        its values in the source, so the source is the cache key of its values)."""
        name = f"k{nid(node)}"
        if node.id not in self.tables:
            self.tables[node.id] = table_decl(name, node)
        return View(name, "0", contiguous_strides(node.shape), frozenset({node.id}))

    def view(self, node: Node) -> View:
        if node.id not in self.views:
            self.views[node.id] = self._make_view(node)
        return self.views[node.id]

    def _make_view(self, node: Node) -> View:
        passed = node.op is Op.INPUT or node in self.plan.hoisted  # with its strides
        if node.id in self.plan.buffers or passed:
            name = value_name(node)
            strides = (
                tuple(f"{name}_s{a}" for a in range(node.ndim))
                if passed
                else contiguous_strides(node.shape)
            )
            if node.op is Op.INPUT and (self.unit_last(node) or node.id in self.unit_c):
                strides = (*strides[:-1], "1")  # a constant gcc can vectorise with
            return View(name, "0", strides, frozenset({node.id}))
        base = self.view(node.inputs[0])
        if node.op is Op.STORE:
            return base
        if node.op is Op.INDEX:
            return index_view(base, node.attr, lambda k: self.dyn(node, k))
        if node.op is Op.TRANSPOSE:
            return transpose_view(base, node.attr)
        if node.op is Op.BROADCAST_TO:
            strides = broadcast_strides(node.inputs[0].shape, node.shape, base.strides)
            return View(base.ptr, base.offset, strides, base.alias)
        if node.op is Op.RESHAPE:
            return View(base.ptr, base.offset, contiguous_strides(node.shape), base.alias)
        if node.op in (Op.REAL, Op.IMAG):
            return self._part_view(node, base)
        raise StructuredUnsupported(f"no view for {node.op.name}")  # RESULTs are registered

    def _part_view(self, node: Node, base: View) -> View:
        """``z.real``/``z.imag`` in memory; ``x.real`` of a real array is ``x`` itself."""
        if node.inputs[0].dtype.kind == "c":
            return part_view(base, ctype(node.dtype), node.op is Op.IMAG)
        if node.op is Op.REAL:
            return base
        raise StructuredUnsupported(f"the read-only zeros of a real array's .imag ({node.loc})")

    def unit_last(self, node: Node) -> bool:
        """Whether the wrapper passes argument ``node`` with a unit last stride, copying it if
        need be: a read-only one the guard key does not already assure (a constant stride lets
        gcc vectorise with plain loads and stores instead of gathers and scatters)."""
        return (
            node.ndim > 0 and node.id not in self.plan.written_inputs and node.id not in self.unit_c
        )

    # -- casts and dynamic indices ----------------------------------------------------------
    def cast(self, expr: str, src: np.dtype, dst: np.dtype) -> str:
        if src != dst and not can_cast(src, dst):
            raise StructuredUnsupported(f"a cast from {src} to {dst}")
        return expr if src == dst else cast(expr, src, dst)

    dyn_checks = index_checks.dyn_checks
    dyn = index_checks.dyn_index
    size_check = index_checks.size_check

    # -- loop nests -------------------------------------------------------------------------
    def open(self, text: str) -> None:
        self.loops += text.startswith(("for ", "while "))
        super().open(text)

    def bail(self, text: str) -> None:
        """A statement that may return an error status (never inside a parallel loop)."""
        self.exits += 1
        self.emit(text)

    def nest(self, shape: tuple[Dim, ...], body: Callable[[list[str]], None]) -> None:
        """An element loop nest; its pragmas come once the body is known (parallel.py)."""
        idx, marks = [f"i{a}" for a in range(len(shape))], []
        for a, d in enumerate(shape):
            marks.append((len(self.lines), self.depth))
            self.open(f"for (int64_t i{a} = 0; i{a} < {dim_c(d)}; i{a}++)")
        self.memo = {}
        body(idx)
        self.memo = {}
        for _ in shape:
            self.close()
        parallel.nest_pragmas(self, shape, marks)

    def alloc(
        self, name: str, shape: tuple[Dim, ...], dtype: np.dtype, node: Node | None = None
    ) -> None:
        """A buffer; sizes known only at run time are allocated at their upper bound."""
        self.allocs.append(Alloc(name, tuple(upper_bound(d) for d in shape), dtype, node))

    def fill(self, dst: View, shape: tuple[Dim, ...], dtype: np.dtype, value: Node) -> None:
        """``dst[...] = value`` (broadcast and cast) as one loop nest."""

        def body(idx: list[str]) -> None:
            expr = self.element(value, broadcast_index(value.shape, shape, idx))
            self.emit(f"{dst.at(idx)} = {self.cast(expr, value.dtype, dtype)};{loc(value)}")

        self.nest(shape, body)

    def materialise(self, node: Node) -> None:
        self.alloc(value_name(node), node.shape, node.dtype, node)
        if node.kind is Kind.REDUCTION:
            return self.reduction(node, self.view(node))
        if node.op is Op.RESULT:
            return  # a branch result: each branch fills it
        dst = self.view(node)
        if node.id in self.unfilled:
            what = "not filled: the loop below stores every element before reading it"
            return self.emit(f"/* {value_name(node)}{shape_c(node.shape)} {what} */{loc(node)}")
        self.emit(f"/* {value_name(node)}{shape_c(node.shape)} = {describe(node)} */{loc(node)}")

        def body(idx: list[str]) -> None:
            self.emit(f"{dst.at(idx)} = {self.compute(node, idx)};")

        self.nest(node.shape, body)

    # -- stores -----------------------------------------------------------------------------
    def store(self, node: Node) -> None:
        target, value = node.inputs[0], node.inputs[1]
        items = node.attr.index
        self.dyn_checks(node, items, target.shape)
        dst = index_view(self.view(target), items, lambda k: self.dyn(node, k))
        shape = indexed_shape(target.shape, items)
        self.written |= dst.alias
        for have, want in store_checks(value.shape, shape):
            self.size_check(node, SizeCheckAttr("store", (have, want)))
        self.emit(f"/* store into {value_name(target)}{shape_c(shape)} */{loc(node)}")
        if self.plan.is_scalar(value) or not self._overlaps(dst, shape, value):
            return self.fill(dst, shape, target.dtype, value)
        tmp = f"t{nid(node)}"
        self.alloc(tmp, shape, target.dtype)
        self.emit("/* the value reads the target through another view: compute it first */")
        scratch = View(tmp, "0", contiguous_strides(shape), frozenset({-node.id}))
        self.fill(scratch, shape, target.dtype, value)
        self.nest(shape, lambda idx: self.emit(f"{dst.at(idx)} = {scratch.at(idx)};"))

    def _overlaps(self, dst: View, shape: tuple[Dim, ...], value: Node) -> bool:
        self.loads = []
        read = lambda idx: self.element(value, broadcast_index(value.shape, shape, idx))
        self.scratch(lambda: self.nest(shape, read))
        idx, found, self.loads = [f"i{a}" for a in range(len(shape))], self.loads, None
        return any(alias & dst.alias and addr != dst.at(idx) for alias, addr in found)


def _index_map(em: Emitter, node: Node, idx: list[str]) -> list[str]:
    return index_index(node.attr, node.inputs[0].ndim, idx, lambda k: em.dyn(node, k))


def _transpose_map(em: Emitter, node: Node, idx: list[str]) -> list[str]:
    out = [""] * len(idx)
    for k, p in enumerate(node.attr):
        out[p] = idx[k]
    return out


def _broadcast_map(em: Emitter, node: Node, idx: list[str]) -> list[str]:
    return broadcast_index(node.inputs[0].shape, node.shape, idx)


#: view op over a computed value -> index into its input for an element of the view.
_VIEW_INDEX: dict[Op, Callable[[Emitter, Node, list[str]], list[str]]] = {
    Op.INDEX: _index_map,
    Op.TRANSPOSE: _transpose_map,
    Op.BROADCAST_TO: _broadcast_map,
}


def _node(emit: Callable[[Emitter, Node], None]) -> Callable[[Emitter, ls.Stmt], None]:
    return lambda em, stmt: emit(em, stmt.node)


#: loop schedule statement -> its C.
STATEMENTS: dict[type, Callable[[Emitter, Any], None]] = {
    ls.Assign: Emitter.assign,
    ls.Buffer: _node(Emitter.materialise),
    ls.Reduce: Emitter.reduce,
    ls.Store: _node(Emitter.store),
    ls.IndexCheck: _node(lambda em, n: em.dyn_checks(n, n.attr, n.inputs[0].shape)),
    ls.SizeCheck: _node(Emitter.size_check),
    ls.Check: _node(control.check),
    ls.LoopResult: _node(control.result),
    ls.UserLoop: control.loop,
    ls.Branch: control.branch,
}


def generate_structured(graph: Graph, unit_c: frozenset[int] = frozenset()) -> Emitter:
    """Plan and emit the body of the region function; the caller wraps it (signature, wrapper).
    ``unit_c``: the arguments the entry's guard key assures C-contiguous with a unit last
    stride, indexed so whether read or written (another layout is another key, another entry)."""
    plan = plan_structured(graph, C)
    schedule = build_schedule(graph, plan)
    em = Emitter(plan, schedule, unit_c=unit_c, unfilled=dead_fills(schedule))
    em.signalling = compares_may_signal(graph)
    for node in graph.inputs:
        if node.attr.input_kind is InputKind.ARRAY:
            em.view(node)
    em.block(em.schedule.body)
    wrong = [n for n in graph.inputs if n.id in em.written and em.unit_last(n)]
    if wrong:  # never store into a copy: the plan missed a store target
        raise StructuredUnsupported(f"a store into {value_name(wrong[0])} the plan did not see")
    return em
