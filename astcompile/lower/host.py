"""The one writer of a region's Python wrapper: the statement forms every wrapper has.

Straight-line code, one statement per step, so the per-call path is as short as Python allows:
the leaves under the user's names, their checks, what the program says (kernel calls through
the target's launcher, NumPy steps, a C loop function, host loops), the outputs. Flat schedules
(:class:`WrapperSource`, every target), C loop regions (``structured_wrapper``) and Triton host
programs (``targets/triton/host_loops.py``) walk their own program through :class:`HostWriter`.
A call whose arrays do not match what the code was generated for (type, dtype, rank, the sizes
the trace relied on, the non-empty reductions ``max``/``min`` need) runs the ``fallback`` (the
eager interpreter): never a wrong answer. A region's wrapper runs only after the entry's guard
key held, so it leaves out what that key checked (:class:`Assured`); a bare graph's wrapper
(``backend.compile``) checks everything. ``targets.wrapper.make_wrapper`` binds the names it uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from astcompile.ir.graph import Graph, InputKind, Node
from astcompile.ir.ops import NUMPY_CALLS, Op
from astcompile.lower.fastplan import NoFastPlan, dim_plan, product, region_plan, size_facts
from astcompile.lower.ids import nid
from astcompile.lower.names import sanitize, value_name
from astcompile.lower.plan import KernelPlan
from astcompile.lower.pyexpr import STEPS, const_value, dim_expr, shape_expr, tuple_expr
from astcompile.passes.schedule import Kernel, NumpyStep, Schedule

if TYPE_CHECKING:
    from astcompile.targets.base import Target  # the protocol, for annotations only

#: what a call that fails the argument checks does by default: the eager interpreter runs it
EAGER = "return _eager(leaves)"
#: what a call run after stores does when a check fails: only a max/min over an empty axis can
NO_IDENTITY = "raise _no_identity()"
#: why a call runs the region's own statements: NumPy raises, or reads what it writes
UNSAFE = "a written argument is read-only or overlaps another argument"


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


def unsafe_lines(cond: str, note: str = "") -> list[str]:
    """A call for which ``cond`` holds (a written argument is read-only or overlaps another)
    runs the region's own statements: NumPy raises, or writes through the overlap, as written."""
    return [f"    if {cond}:{note}", f"        raise _RunPlain({UNSAFE!r})"]


class HostWriter:
    """The lines, constants and NumPy steps of one wrapper function, written statement by
    statement; ``fallback``: the statement a call that fails the argument checks runs."""

    def __init__(self, fallback: str = EAGER) -> None:
        self.header: list[str] = []  # module lines run once, when the wrapper is defined
        self.lines: list[str] = []
        self.consts: dict[str, object] = {}
        self.steps: dict[str, Node] = {}  # NumPy steps the wrapper runs, by name
        self.calls: dict[tuple, str] = {}  # a call with several results: the name of them all
        self.fallback = fallback

    def emit(self, text: str, depth: int = 1) -> None:
        self.lines.append("    " * depth + text)

    def open(self, name: str, graph: Graph) -> None:
        """``def region_...(leaves):`` and the leaves under the user's names."""
        self.lines = [f"def {name}(leaves):"]
        names = [value_name(n) for n in graph.inputs]
        if names:  # a region of constants only (``np.exp(2.5)``) takes no leaves
            self.emit(f"{', '.join(names)}{',' if len(names) == 1 else ''} = leaves")

    def checks(self, graph: Graph, extra: Sequence[str] = (), assured: Assured = NOTHING) -> None:
        """Check each input's type, dtype and rank (unless ``assured``), bind its sizes
        (``d0_1``), and check the size facts the trace relied on and ``extra``: a call that
        fails one runs the fallback."""
        for k, node in enumerate(graph.inputs):
            name = value_name(node)
            if node.attr.input_kind is InputKind.SCALAR:
                continue
            if node.id not in assured.typed:
                self.consts[f"_dt{k}"] = node.dtype
                self.emit(
                    f"if not (type({name}) is _ndarray and {name}.dtype is _dt{k} "
                    f"and {name}.ndim == {len(node.shape)}):"
                )
                self.emit(self.fallback, 2)
            dims = [f"d{k}_{a}" for a in range(len(node.shape))]
            if dims:
                self.emit(f"{', '.join(dims)}{',' if len(dims) == 1 else ''} = {name}.shape")
        conds = [f"d{k}_{a} == {dim_expr(d)}" for k, a, d in size_facts(graph)] + list(extra)
        if conds:
            self.emit(f"if not ({' and '.join(conds)}):")
            self.emit(self.fallback, 2)

    def numpy_step(
        self, node: Node, args: Sequence[str], target: str = "", depth: int = 1, **how: str
    ) -> None:
        """Run ``node`` by the eager interpreter's rule (NumPy; ``runner=``: another runner of
        that rule), binding ``target`` if given; ``note=``: a comment after it."""
        whole = self._whole_call(node, args, depth) if target and not how else None
        if whole is not None:
            self.emit(f"{target} = {whole}[{node.attr.item}]", depth)
            return
        self.steps[f"n{nid(node)}"] = node
        if node.op in NUMPY_CALLS and "runner" not in how:  # bound as _f<name> (make_wrapper)
            call = f"_fn{nid(node)}({', '.join(args)})"
        else:
            call = f"{how.get('runner', '_step')}(n{nid(node)}, [{', '.join(args)}], leaves)"
        self.emit(f"{target} = {call}" if target else call, depth)
        self.lines[-1] += how.get("note", "")

    def _whole_call(self, node: Node, args: Sequence[str], depth: int) -> str | None:
        """The name bound to all the results of the call ``node`` picks one of (``h, e =
        np.histogram(x)``: one node per result): the call runs once, where its first result
        is wanted, as the user's statement runs it once (it ran once per result, at half the
        plain speed). Straight-line code only (``depth`` 1), where a name is one value."""
        attr = node.attr
        if node.op not in NUMPY_CALLS or attr.item is None or depth != 1:
            return None
        key = (replace(attr, item=None, view_of=0), tuple(args))
        try:
            name = self.calls.get(key)
        except TypeError:  # an unhashable static argument: one call per result, as before
            return None
        if name is None:
            name = self.calls[key] = f"r{nid(node)}"
            self.steps[f"w{nid(node)}"] = Node(
                node.op, node.inputs, node.dtype, (), key[0], node.loc
            )
            self.emit(f"{name} = _fw{nid(node)}({', '.join(args)})")
        return name

    def alloc(self, target: str, shape: str, dtype_name: str, dtype: np.dtype) -> None:
        """``target = np.empty(shape, dtype)``: a buffer the compiled code writes."""
        self.consts[dtype_name] = dtype
        self.emit(f"{target} = _empty({shape}, {dtype_name})")

    def alloc_node(self, node: Node) -> None:
        """A fresh array for ``node``'s value, named as :meth:`WrapperSource.ref` names it."""
        self.alloc(f"t{nid(node)}", shape_expr(node.shape), f"_odt{nid(node)}", node.dtype)

    def unit_last(self, name: str, itemsize: int) -> str:
        """Bind ``u_name``: ``name`` with a unit last stride (itself, or a copy); its name."""
        self.emit(f"u_{name} = {name} if {name}.strides[-1] == {itemsize} else _contiguous({name})")
        return f"u_{name}"

    def returns(self, outs: Sequence[str], depth: int = 1) -> None:
        self.emit(f"return {tuple_expr(outs)}", depth)

    def source(self) -> str:
        """The wrapper's module text: its header, then the function."""
        return "\n".join([*self.header, *self.lines]) + "\n"


class WrapperSource(HostWriter):
    """The wrapper of a scheduled (flat) region; the target's launcher writes the kernel
    calls (allocating their outputs, passing arrays, sizes and scalars)."""

    def __init__(
        self,
        sched: Schedule,
        plans: dict[str, KernelPlan],
        target: Target,
        reuse: dict[int, Node] | None = None,
        assured: Assured = NOTHING,
        fallback: str = EAGER,
    ) -> None:
        super().__init__(fallback)
        self.sched, self.plans, self.assured = sched, plans, assured
        self.minmax: list[tuple] = []  # (kernel, inner, rows) sizes of max/min kernels
        self.fast: dict | None = None  # the wrapper as a fast plan (lower/fastplan.py)
        # reuse: output id -> the owned temporary it is written over
        self.launcher = target.launcher(self, plans, reuse or {})

    def build(self) -> str:
        graph = self.sched.graph
        self.header = self.launcher.prelude([s for s in self.sched.steps if isinstance(s, Kernel)])
        self.open(f"region_{sanitize(graph.name)}", graph)
        self.checks(graph, self._minmax_checks(), self.assured)
        for node in graph.nodes():
            if node.op is Op.CONST and not (
                node.shape == () and _used_only_in_kernels(node, self.sched)
            ):
                self.consts[f"c{nid(node)}"] = const_value(node)
            if node.op is Op.DIM:  # a size used as a value (``x + x.shape[0]``)
                self.emit(f"t{nid(node)} = {dim_expr(node.attr)}")
        for step in self.sched.steps:
            self.launcher.launch(step) if isinstance(step, Kernel) else self._numpy(step)
        self.returns([self.ref(o) for o in graph.outputs])
        calls = getattr(self.launcher, "fast", None)
        self.fast = region_plan(self.sched, self.assured.typed, calls, self.minmax)
        return self.source()

    def ref(self, node: Node) -> str:
        if node.op is Op.INPUT:
            return value_name(node)
        if node.op is Op.CONST:
            return f"c{nid(node)}"
        return f"t{nid(node)}"

    def _minmax_checks(self) -> list[str]:
        """That a max/min kernel's rows are not empty (else NumPy raises: the eager
        interpreter does)."""
        conds = []
        for step in self.sched.steps:
            if isinstance(step, Kernel) and _has_minmax(step):
                plan = self.plans[step.name]
                inner = " * ".join(dim_expr(step.domain[a]) for a in plan.inner)
                rows = " * ".join(dim_expr(step.domain[a]) for a in plan.rows) or "1"
                conds.append(f"({inner} != 0 or {rows} == 0)")
                self._minmax_plan(step, plan)
        return conds

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
            self.numpy_step(node, args, f"t{nid(node)}")


def _has_minmax(kernel: Kernel) -> bool:
    return any(n.op in (Op.MAX, Op.MIN) for n in kernel.nodes)


def _used_only_in_kernels(node: Node, sched: Schedule) -> bool:
    return node.id not in {o.id for o in sched.graph.outputs} and not any(
        isinstance(s, NumpyStep) and node in s.node.inputs for s in sched.steps
    )
