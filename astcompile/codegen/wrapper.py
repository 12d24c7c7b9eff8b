"""The generated Python wrapper of a region: checks, allocation, kernel calls, NumPy steps.

It is straight-line code, one statement per step, so the per-call path is as short as Python
allows. A call whose arrays do not match what the code was generated for (type, dtype, rank,
the 0/1 sizes and equal sizes the trace relied on, the non-empty reductions ``max``/``min``
need) runs the eager interpreter instead: never a wrong answer. A region's entry runs its
wrapper only after the entry's guard key held (the generated guard function, the generic key
or a warm-cache load, which looks entries up by that key), so a wrapper generated for a region
leaves out what that key already checked (:class:`Assured`); a bare graph's wrapper
(``backend.compile``) checks everything itself.

The kernel calls (allocating their outputs, passing arrays, sizes and scalars) are the
target's launcher's (:mod:`astcompile.codegen.target`; C: :mod:`astcompile.codegen.c_target`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from astcompile.codegen.c_target import C
from astcompile.codegen.fastplan import NoFastPlan, dim_plan, product, region_plan
from astcompile.codegen.ids import nid
from astcompile.codegen.names import sanitize, value_name
from astcompile.codegen.plan import KernelPlan
from astcompile.codegen.pyexpr import STEPS, const_value, dim_expr
from astcompile.codegen.target import Target
from astcompile.ir.graph import Graph, InputKind, Node
from astcompile.ir.ops import Op
from astcompile.ir.shapes import DimOp, SymDim
from astcompile.passes.schedule import Kernel, NumpyStep, Schedule


@dataclass(frozen=True)
class Assured:
    """What the guards run before the wrapper already checked of its inputs (node ids).

    ``typed``: an ndarray of the node's dtype and rank (the guard key's type, dtype and rank).
    ``unit_c``: also C-contiguous with at least one element and a last axis of two or more, so
    its last stride is the item size (the key's layout and size classes keep both true)."""

    typed: frozenset[int] = frozenset()
    unit_c: frozenset[int] = frozenset()


NOTHING = Assured()  # a bare graph's wrapper: it checks everything itself


def assured_by(graph: Graph, leaves: Sequence[object]) -> Assured:
    """What the guard key of ``leaves`` (the values a region is compiled for, in graph-input
    order) assures of every later call that passes the same key; an input whose value does not
    match its node is left to the wrapper's checks."""
    typed, unit_c = set(), set()
    for node, leaf in zip(graph.inputs, leaves):
        if not (
            node.attr.input_kind is InputKind.ARRAY
            and type(leaf) is np.ndarray
            and leaf.dtype == node.dtype
            and leaf.ndim == len(node.shape)
        ):
            continue
        typed.add(node.id)
        if leaf.flags.c_contiguous and leaf.size > 0 and leaf.ndim and leaf.shape[-1] > 1:
            unit_c.add(node.id)
    return Assured(frozenset(typed), frozenset(unit_c))


class WrapperSource:
    """The wrapper of a scheduled region; the target's launcher writes the kernel calls."""

    def __init__(
        self,
        sched: Schedule,
        plans: dict[str, KernelPlan],
        reuse: dict[int, Node] | None = None,
        target: Target = C,
        assured: Assured = NOTHING,
    ) -> None:
        self.sched = sched
        self.plans = plans
        self.assured = assured
        self.lines: list[str] = []
        self.consts: dict[str, object] = {}
        self.steps: dict[str, Node] = {}
        self.minmax: list[tuple] = []  # (kernel, inner, rows) sizes of max/min kernels
        self.fast: dict | None = None  # the wrapper as a fast plan (codegen/fastplan.py)
        # reuse: output id -> the owned temporary it is written over
        self.launcher = target.launcher(self, plans, reuse or {})

    def emit(self, text: str) -> None:
        self.lines.append("    " + text)

    def build(self) -> str:
        graph = self.sched.graph
        names = [value_name(n) for n in graph.inputs]
        header = self.launcher.prelude([s for s in self.sched.steps if isinstance(s, Kernel)])
        self.lines = [f"def region_{sanitize(graph.name)}(leaves):"]
        if names:  # a region of constants only (``np.exp(2.5)``) takes no leaves
            self.emit(f"{', '.join(names)}{',' if len(names) == 1 else ''} = leaves")
        self._checks()
        for node in graph.nodes():
            if node.op is Op.CONST and not (
                node.shape == () and _used_only_in_kernels(node, self.sched)
            ):
                self.consts[f"c{nid(node)}"] = const_value(node)
            if node.op is Op.DIM:  # a size used as a value (``x + x.shape[0]``)
                self.emit(f"t{nid(node)} = {dim_expr(node.attr)}")
        for step in self.sched.steps:
            self.launcher.launch(step) if isinstance(step, Kernel) else self._numpy(step)
        outs = [self.ref(o) for o in graph.outputs]
        self.emit(f"return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
        calls = getattr(self.launcher, "fast", None)
        self.fast = region_plan(self.sched, self.assured.typed, calls, self.minmax)
        return "\n".join([*header, *self.lines]) + "\n"

    def ref(self, node: Node) -> str:
        if node.op is Op.INPUT:
            return value_name(node)
        if node.op is Op.CONST:
            return f"c{nid(node)}"
        return f"t{nid(node)}"

    def _checks(self) -> None:
        """The argument checks, and that a max/min kernel's rows are not empty (else NumPy
        raises: the eager interpreter does)."""
        conds = []
        for step in self.sched.steps:
            if isinstance(step, Kernel) and _has_minmax(step):
                plan = self.plans[step.name]
                inner = " * ".join(dim_expr(step.domain[a]) for a in plan.inner)
                rows = " * ".join(dim_expr(step.domain[a]) for a in plan.rows) or "1"
                conds.append(f"({inner} != 0 or {rows} == 0)")
                self._minmax_plan(step, plan)
        lines, consts = argument_checks(self.sched.graph, conds, self.assured)
        self.lines += lines
        self.consts.update(consts)

    def _minmax_plan(self, step: Kernel, plan: KernelPlan) -> None:
        try:
            inner = product([dim_plan(step.domain[a]) for a in plan.inner])
            rows = product([dim_plan(step.domain[a]) for a in plan.rows])
        except NoFastPlan:
            self.minmax.append((step, None, None))
            return
        self.minmax.append((step, inner, rows))

    def _numpy(self, step: NumpyStep) -> None:
        node = step.node
        if self.launcher.step(node):  # the target's own kernel (Triton's scans)
            return
        args = [self.ref(i) for i in node.inputs]
        rule = STEPS.get(node.op)
        if rule is not None:
            self.emit(f"t{nid(node)} = {rule(node, args)}")
        else:
            self.steps[f"n{nid(node)}"] = node
            self.emit(f"t{nid(node)} = _step(n{nid(node)}, [{', '.join(args)}], leaves)")


def _has_minmax(kernel: Kernel) -> bool:
    return any(n.op in (Op.MAX, Op.MIN) for n in kernel.nodes)


def _used_only_in_kernels(node: Node, sched: Schedule) -> bool:
    return node.id not in {o.id for o in sched.graph.outputs} and not any(
        isinstance(s, NumpyStep) and node in s.node.inputs for s in sched.steps
    )


def argument_checks(
    graph: Graph, extra: list[str], assured: Assured = NOTHING
) -> tuple[list[str], dict[str, object]]:
    """(wrapper lines, their constants) checking each input's type, dtype and rank (unless
    ``assured``), binding its sizes (``d0_1``), and checking the size facts the trace relied on
    and ``extra``: a call that fails one runs the eager interpreter. Shared by both kinds of
    region."""
    lines: list[str] = []
    consts: dict[str, object] = {}
    defined: set[str] = set()
    conds: list[str] = []
    for k, node in enumerate(graph.inputs):
        name = value_name(node)
        if node.attr.input_kind is InputKind.SCALAR:
            continue
        if node.id not in assured.typed:
            consts[f"_dt{k}"] = node.dtype
            lines.append(
                f"    if not (type({name}) is _ndarray and {name}.dtype is _dt{k} "
                f"and {name}.ndim == {len(node.shape)}):"
            )
            lines.append("        return _eager(leaves)")
        dims = [f"d{k}_{a}" for a in range(len(node.shape))]
        if dims:
            lines.append(f"    {', '.join(dims)}{',' if len(dims) == 1 else ''} = {name}.shape")
        for a, d in enumerate(node.shape):
            var = f"d{k}_{a}"
            if isinstance(d, SymDim) and d.op is DimOp.SYM and d.source == (k, a):
                defined.add(var)
            elif not isinstance(d, SymDim) or d.op is not DimOp.SYM or dim_expr(d) in defined:
                conds.append(f"{var} == {dim_expr(d)}")
    conds += extra
    if conds:
        lines += [f"    if not ({' and '.join(conds)}):", "        return _eager(leaves)"]
    return lines, consts
