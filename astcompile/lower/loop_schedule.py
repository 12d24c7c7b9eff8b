"""The loop schedule: what a loop region does, as target-free data a code generator walks.

A loop graph (loops, branches, stores, run-time indices) and its
:class:`~astcompile.lower.structured_plan.StructPlan` become a tree of statements in program
order. The plan decided which values live in memory (buffers), which are scalars and which
stay lazy (fused into their consumers: no statement of their own); the schedule adds what a
target needs to know about each statement:

* :class:`UserLoop`: the user's ``for``/``while``, its loop-variable name, range, carried
  values, source line, and whether its iterations are provably independent
  (:func:`~astcompile.lower.independence.independent`);
* :class:`Branch`: an ``if`` with its two blocks and the values it picks;
* :class:`Assign` (a scalar local), :class:`Buffer` (an array computed into memory),
  :class:`Reduce` (a reduction, by the rule table :data:`astcompile.lower.reduce.RULES`),
  :class:`Store` (``target[index] = value``): the last three over an :class:`ElementLoop`;
* checks: :class:`IndexCheck` (run-time indices checked and clipped), :class:`SizeCheck`,
  :class:`Check` (``assert`` and Python's errors), and :class:`LoopResult` (a carried scalar's
  final value).

Every statement knows ``around``: how many user loops enclose it. An element loop may spread
over threads only outside every user loop (a team per iteration costs more than it saves);
its innermost axis is a SIMD axis. ``str(schedule)`` reads like pseudo-code
(:mod:`.loop_schedule_text`); :func:`loop_form` says what a GPU can make of each user loop.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

from astcompile.ir.graph import DynIndex, Graph, Loc, Node
from astcompile.ir.ops import Kind, Op
from astcompile.ir.shapes import Dim
from astcompile.lower.independence import independent
from astcompile.lower.index_ranges import indexed_shape
from astcompile.lower.loop_schedule_text import render
from astcompile.lower.reduce import RULES, Reduction
from astcompile.lower.structured_plan import StructPlan


@dataclass(frozen=True)
class ElementLoop:
    """An array statement's iteration space."""

    shape: tuple[Dim, ...]
    parallel: tuple[int, ...]  #: axes that may be spread over threads
    simd: tuple[int, ...]  #: axes that may run on vector lanes


def element_loop(shape: tuple[Dim, ...], around: int) -> ElementLoop:
    """Elements are independent by construction (a store reading its own target goes through
    a temporary): the outermost axis is parallel outside every user loop, the last is SIMD."""
    if not shape:
        return ElementLoop((), (), ())
    return ElementLoop(tuple(shape), (0,) if around == 0 else (), (len(shape) - 1,))


@dataclass(frozen=True)
class Stmt:
    node: Node  #: the graph node the statement computes
    around: int  #: user loops around it


@dataclass(frozen=True)
class Assign(Stmt):
    """A scalar local; ``reads``: it is an element read from memory (``x[i]``)."""

    reads: bool


@dataclass(frozen=True)
class Buffer(Stmt):
    """An array computed into its own memory (a store target, an output, a value a later
    store would change)."""

    elements: ElementLoop


@dataclass(frozen=True)
class Reduce(Stmt):
    """A reduction over ``axes`` of its input; ``rule`` is None for argmax/argmin."""

    rule: Reduction | None
    axes: tuple[int, ...]
    into_buffer: bool  #: an array result (kept axes) rather than a scalar local
    elements: ElementLoop  #: the input's iteration space


@dataclass(frozen=True)
class Store(Stmt):
    """``target[index] = value``, broadcast over ``elements`` (the indexed shape)."""

    target: Node
    index: tuple
    value: Node
    elements: ElementLoop


@dataclass(frozen=True)
class IndexCheck(Stmt):
    """The run-time indices and slice bounds of an INDEX node, checked or clipped once."""


@dataclass(frozen=True)
class SizeCheck(Stmt):
    """Sizes known only at run time, compared as NumPy compares them."""


@dataclass(frozen=True)
class Check(Stmt):
    """``assert`` or a Python error on loop values."""


@dataclass(frozen=True)
class LoopResult(Stmt):
    """The final value of a loop-carried scalar."""


@dataclass(frozen=True)
class Carried:
    """A loop-carried value: ``holder`` in the body starts as ``init``, becomes ``out``."""

    holder: Node
    init: Node
    out: Node
    scalar: bool


@dataclass(frozen=True)
class UserLoop(Stmt):
    var: str | None  #: the loop variable's name (None for ``while``)
    bounds: tuple[Node, ...]  #: (start, stop, step), or (test,) for ``while``
    independent: bool  #: iterations provably touch disjoint memory
    carried: tuple[Carried, ...]
    exits: bool  #: may ``break`` (the body's last output: run another iteration)
    line: Loc | None
    body: tuple[Stmt, ...]

    @property
    def is_while(self) -> bool:
        return self.node.attr.is_while


@dataclass(frozen=True)
class Branch(Stmt):
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    results: tuple[tuple[int, Node], ...]  #: (output position, RESULT node)


@dataclass(frozen=True)
class Schedule:
    graph: Graph
    plan: StructPlan
    body: tuple[Stmt, ...]

    def loops(self) -> Iterator[UserLoop]:
        """Every user loop, outer ones first."""
        return _loops(self.body)

    def __str__(self) -> str:
        return render(self)


def build_schedule(graph: Graph, plan: StructPlan) -> Schedule:
    return Schedule(graph, plan, block(plan, graph, 0))


def block(plan: StructPlan, graph: Graph, around: int) -> tuple[Stmt, ...]:
    """The statements of one level (the region, a loop body, a branch), in program order."""
    out: list[Stmt] = []
    for node in plan.levels[id(graph)]:
        rule = _STATEMENTS.get(node.op, _value)
        out += rule(plan, node, around)
    return tuple(out)


def _value(plan: StructPlan, node: Node, around: int) -> list[Stmt]:
    """A buffer is filled, a scalar becomes a local; a lazy array has no statement."""
    if node.kind is Kind.REDUCTION and (node.id in plan.buffers or plan.is_scalar(node)):
        elements = element_loop(node.inputs[0].shape, around)
        into = node.id in plan.buffers
        return [Reduce(node, around, RULES.get(node.op), tuple(node.attr.axes), into, elements)]
    if node.id in plan.buffers:
        return [Buffer(node, around, element_loop(node.shape, around))]
    if plan.is_scalar(node):
        return [Assign(node, around, plan.rooted(node))]
    return []


def _const(plan: StructPlan, node: Node, around: int) -> list[Stmt]:
    """An array constant stored into or returned is copied into a buffer; others are read
    where they are used."""
    return (
        [Buffer(node, around, element_loop(node.shape, around))] if node.id in plan.buffers else []
    )


def _index(plan: StructPlan, node: Node, around: int) -> list[Stmt]:
    runtime = any(i.kind == "dslice" or isinstance(i.start, DynIndex) for i in node.attr)
    checks: list[Stmt] = [IndexCheck(node, around)] if runtime else []
    return checks + _value(plan, node, around)


def _store(plan: StructPlan, node: Node, around: int) -> list[Stmt]:
    target, value = node.inputs[0], node.inputs[1]
    shape = indexed_shape(target.shape, node.attr.index)
    return [Store(node, around, target, node.attr.index, value, element_loop(shape, around))]


def _loop(plan: StructPlan, node: Node, around: int) -> list[Stmt]:
    attr = node.attr
    inits = node.inputs[attr.heads : attr.heads + attr.carried]
    carried = tuple(
        Carried(h, i, o, plan.is_scalar(h))
        for h, i, o in zip(attr.holders, inits, attr.body.outputs)
    )
    var = None if attr.is_while else attr.body.inputs[0].attr.name
    bounds = node.inputs[: attr.heads]
    body = block(plan, attr.body, around + 1)
    proved = independent(node, plan)
    return [UserLoop(node, around, var, bounds, proved, carried, attr.exits, node.loc, body)]


def _branch(plan: StructPlan, node: Node, around: int) -> list[Stmt]:
    then = block(plan, node.attr.then_graph, around)
    orelse = block(plan, node.attr.else_graph, around)
    results = tuple(sorted(plan.results.get(node.id, {}).items()))
    return [Branch(node, around, then, orelse, results)]


def _result(plan: StructPlan, node: Node, around: int) -> list[Stmt]:
    """A loop's carried scalar gets a local; array results and branch results are the
    memory their loop or branch already wrote."""
    scalar = node.inputs[0].op is Op.LOOP and plan.is_scalar(node)
    return [LoopResult(node, around)] if scalar else []


def _one(kind: type[Stmt]):
    return lambda plan, node, around: [kind(node, around)]


#: op -> its statements; other ops are values (:func:`_value`).
_STATEMENTS = {
    Op.INPUT: lambda plan, node, around: [],
    # hoisted: the wrapper runs it (structured_plan); else a value the target computes
    Op.NUMPY: lambda plan, node, around: [] if node in plan.hoisted else _value(plan, node, around),
    Op.CONST: _const,
    Op.INDEX: _index,
    Op.STORE: _store,
    Op.SIZE_CHECK: _one(SizeCheck),
    Op.LOOP: _loop,
    Op.IF: _branch,
    Op.RESULT: _result,
    Op.CHECK: _one(Check),
}


def _loops(stmts: tuple[Stmt, ...]) -> Iterator[UserLoop]:
    for stmt in stmts:
        if isinstance(stmt, UserLoop):
            yield stmt
            yield from _loops(stmt.body)
        elif isinstance(stmt, Branch):
            yield from _loops(stmt.then)
            yield from _loops(stmt.orelse)


class LoopForm(enum.Enum):
    """What a data-parallel target (a GPU) can make of a user loop."""

    GRID = "grid"  #: independent iterations: one grid of threads
    HOST_LOOP = "host loop over array statements"  #: sequential; each statement a launch
    SCALAR = "scalar element updates"  #: sequential element by element: no GPU form


def loop_form(loop: UserLoop) -> LoopForm:
    """A loop whose iterations are independent is a grid. A sequential loop is a host loop
    when its body is made of whole-array statements (array stores, buffers, reductions, grids
    nested inside, scalars that do not read array elements); a single element stored or read
    (``x[i] = x[i - 1] + 1``, ``total += x[i]``) makes it scalar element updates."""
    if loop.independent:
        return LoopForm.GRID
    return LoopForm.SCALAR if _element_wise(loop.body) else LoopForm.HOST_LOOP


def loop_forms(schedule: Schedule) -> dict[int, LoopForm]:
    """Node id of each user loop -> its form."""
    return {loop.node.id: loop_form(loop) for loop in schedule.loops()}


def _element_wise(stmts: tuple[Stmt, ...]) -> bool:
    for stmt in stmts:
        if isinstance(stmt, UserLoop) and loop_form(stmt) is LoopForm.SCALAR:
            return True
        if isinstance(stmt, Branch) and (_element_wise(stmt.then) or _element_wise(stmt.orelse)):
            return True
        if _single_element(stmt):
            return True
    return False


def _single_element(stmt: Stmt) -> bool:
    """A store of one element, or a scalar read of one, at an index the loop computes
    (``x[i]``); ``u[0] = u.mean()`` is one launch, as any whole-array statement."""
    if isinstance(stmt, Store):
        return not stmt.elements.shape and _runtime_index(stmt.node)
    return isinstance(stmt, Assign) and stmt.reads and _runtime_index(stmt.node)


def _runtime_index(node: Node) -> bool:
    """Whether a store or read indexes with values the loop computes."""
    if node.op is Op.INDEX:
        return len(node.inputs) > 1
    if node.op is Op.STORE:
        return len(node.inputs) > 2 or any(_dynamic(i) for i in node.attr.index)
    return True


def _dynamic(item) -> bool:
    return item.kind == "dslice" or isinstance(item.start, DynIndex)
