"""The generated Python wrapper of a region: checks, allocation, kernel calls, NumPy steps.

It is straight-line code, one statement per step, so the per-call path is as short as Python
allows: contiguous arrays are passed with ``ffi.from_buffer`` (0.3 us), strided ones by address;
strides are passed in bytes and divided by the item size in C. A call whose arrays do not match
what the code was generated for (dtype, rank, the 0/1 sizes and equal sizes the trace relied
on) runs the eager interpreter instead: never a wrong answer.
"""

from __future__ import annotations

from astcompile.codegen.names import sanitize, value_name
from astcompile.codegen.plan import KernelPlan
from astcompile.codegen.pyexpr import STEPS, const_value, dim_expr, shape_expr
from astcompile.graph.ir import InputKind, Node
from astcompile.graph.ops import Op
from astcompile.graph.shapes import DimOp, SymDim
from astcompile.passes.schedule import Kernel, NumpyStep, Schedule


class WrapperSource:
    def __init__(self, sched: Schedule, plans: dict[str, KernelPlan]) -> None:
        self.sched = sched
        self.plans = plans
        self.lines: list[str] = []
        self.consts: dict[str, object] = {}
        self.steps: dict[str, Node] = {}
        self.fresh: set[int] = set()

    def emit(self, text: str) -> None:
        self.lines.append("    " + text)

    def build(self) -> str:
        graph = self.sched.graph
        names = [value_name(n) for n in graph.inputs]
        self.lines = [f"def region_{sanitize(graph.name)}(leaves):"]
        if names:  # a region of constants only (``np.exp(2.5)``) takes no leaves
            self.emit(f"{', '.join(names)}{',' if len(names) == 1 else ''} = leaves")
        self._checks()
        for node in graph.nodes():
            if node.op is Op.CONST and not (
                node.shape == () and _used_only_in_kernels(node, self.sched)
            ):
                self.consts[f"c{node.id}"] = const_value(node)
        for step in self.sched.steps:
            self._kernel(step) if isinstance(step, Kernel) else self._numpy(step)
        outs = [self.ref(o) for o in graph.outputs]
        self.emit(f"return [{', '.join(outs)}]")
        return "\n".join(self.lines) + "\n"

    def ref(self, node: Node) -> str:
        if node.op is Op.INPUT:
            return value_name(node)
        if node.op is Op.CONST:
            return f"c{node.id}"
        return f"t{node.id}"

    def _checks(self) -> None:
        defined: set[str] = set()
        conds: list[str] = []
        for k, node in enumerate(self.sched.graph.inputs):
            name = value_name(node)
            if node.attr.input_kind is InputKind.SCALAR:
                continue
            conds.append(f"type({name}) is _ndarray and {name}.dtype is _dt{k}")
            self.consts[f"_dt{k}"] = node.dtype
            dims = [f"d{k}_{a}" for a in range(len(node.shape))]
            conds.append(f"{name}.ndim == {len(node.shape)}")
            self.lines.append(f"    if not ({conds[-2]} and {conds[-1]}):")
            self.emit("    return _eager(leaves)")
            conds.clear()
            if dims:
                self.emit(f"{', '.join(dims)}{',' if len(dims) == 1 else ''} = {name}.shape")
            for a, d in enumerate(node.shape):
                var = f"d{k}_{a}"
                if isinstance(d, SymDim) and d.op is DimOp.SYM and d.source == (k, a):
                    defined.add(var)
                elif not isinstance(d, SymDim) or d.op is not DimOp.SYM or dim_expr(d) in defined:
                    conds.append(f"{var} == {dim_expr(d)}")
        for step in self.sched.steps:
            if isinstance(step, Kernel) and _has_minmax(step):
                plan = self.plans[step.name]
                inner = " * ".join(dim_expr(step.domain[a]) for a in plan.inner)
                rows = " * ".join(dim_expr(step.domain[a]) for a in plan.rows) or "1"
                conds.append(f"({inner} != 0 or {rows} == 0)")  # else NumPy raises: eager does
        if conds:
            self.emit(f"if not ({' and '.join(conds)}):")
            self.emit("    return _eager(leaves)")

    def _numpy(self, step: NumpyStep) -> None:
        node = step.node
        args = [self.ref(i) for i in node.inputs]
        rule = STEPS.get(node.op)
        if rule is not None:
            self.emit(f"t{node.id} = {rule(node, args)}")
        else:
            self.steps[f"n{node.id}"] = node
            self.emit(f"t{node.id} = _step(n{node.id}, [{', '.join(args)}], leaves)")

    def _kernel(self, kernel: Kernel) -> None:
        plan = self.plans[kernel.name]
        for o in kernel.outputs:
            self.consts[f"_odt{o.id}"] = o.dtype
            self.emit(f"t{o.id} = _empty({shape_expr(o.shape)}, _odt{o.id})")
            self.fresh.add(o.id)
        args = ["_nthreads()"] + [dim_expr(d) for d in kernel.domain]
        args += self._arrays(plan.loads)
        args += [
            self.ref(s) if s.dtype.kind != "b" else f"bool({self.ref(s)})" for s in plan.scalars
        ]
        args += self._arrays(kernel.outputs)
        self.emit(f"_lib.{kernel.name}({', '.join(args)})")

    def _arrays(self, nodes: list[Node]) -> list[str]:
        """Pointer and byte strides of each array, in C parameter order."""
        args = []
        for node in nodes:
            name = self.ref(node)
            fresh = node.id in self.fresh  # allocated here with np.empty: contiguous
            args.append(f"_fb({name})" if fresh else f"_ptr({name})")
            if node.shape:
                args.append(f"*{name}.strides")
        return args


def _has_minmax(kernel: Kernel) -> bool:
    return any(n.op in (Op.MAX, Op.MIN) for n in kernel.nodes)


def _used_only_in_kernels(node: Node, sched: Schedule) -> bool:
    return node.id not in {o.id for o in sched.graph.outputs} and not any(
        isinstance(s, NumpyStep) and node in s.node.inputs for s in sched.steps
    )
