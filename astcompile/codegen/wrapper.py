"""The generated Python wrapper of a region: checks, allocation, kernel calls, NumPy steps.

It is straight-line code, one statement per step, so the per-call path is as short as Python
allows. A call whose arrays do not match what the code was generated for (type, dtype, rank,
the 0/1 sizes and equal sizes the trace relied on, the non-empty reductions ``max``/``min``
need) runs the eager interpreter instead: never a wrong answer. (A region checks its guard key
first; these checks keep the wrapper safe on its own, for about 0.1 us per array.)

Kernels are looked up on the library once, when the wrapper is defined. Each array's pointer and
byte strides are computed once per call: ``ffi.from_buffer`` for C-contiguous arrays (0.3 us; it
raises ``ValueError`` on others, which then go by address), and the strides of the wrapper's own
fresh ``np.empty`` outputs are computed from their shape instead of read back. The C side
divides byte strides by the item size. The kernels index an array's last axis with stride 1
when it follows their innermost loop; the rare argument whose last axis is strided (``x[:, ::2]``)
is passed as a C-contiguous copy (one extra pass, instead of a second, strided copy of every
loop in the C).
"""

from __future__ import annotations

from astcompile.codegen.ctypes import scalar_args
from astcompile.codegen.ids import nid
from astcompile.codegen.names import sanitize, value_name
from astcompile.codegen.plan import KernelPlan, unit_inner_buffers
from astcompile.codegen.pyexpr import STEPS, const_value, dim_expr, shape_expr
from astcompile.ir.graph import InputKind, Node
from astcompile.ir.ops import Op
from astcompile.ir.shapes import DimOp, SymDim
from astcompile.passes.schedule import Kernel, NumpyStep, Schedule


class WrapperSource:
    def __init__(
        self, sched: Schedule, plans: dict[str, KernelPlan], reuse: dict[int, Node] | None = None
    ) -> None:
        self.sched = sched
        self.plans = plans
        self.reuse = reuse or {}  # output id -> the owned temporary it is written over
        self.unit_inner = set().union(*(unit_inner_buffers(p) for p in plans.values()))
        self.arrays: dict[int, str] = {}  # node id -> the array passed for it, when not itself
        self.lines: list[str] = []
        self.consts: dict[str, object] = {}
        self.steps: dict[str, Node] = {}
        self.fresh: set[int] = set()
        self.pointers: dict[int, list[str]] = {}  # node id -> its pointer and stride names

    def emit(self, text: str) -> None:
        self.lines.append("    " + text)

    def build(self) -> str:
        graph = self.sched.graph
        names = [value_name(n) for n in graph.inputs]
        kernels = [step.name for step in self.sched.steps if isinstance(step, Kernel)]
        header = [f"_k_{name} = _lib.{name}" for name in kernels]
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
            self._kernel(step) if isinstance(step, Kernel) else self._numpy(step)
        outs = [self.ref(o) for o in graph.outputs]
        self.emit(f"return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
        return "\n".join([*header, *self.lines]) + "\n"

    def ref(self, node: Node) -> str:
        if node.op is Op.INPUT:
            return value_name(node)
        if node.op is Op.CONST:
            return f"c{nid(node)}"
        return f"t{nid(node)}"

    def _checks(self) -> None:
        """Check each input's type, dtype and rank, bind its sizes, check the size facts."""
        defined: set[str] = set()
        conds: list[str] = []
        for k, node in enumerate(self.sched.graph.inputs):
            name = value_name(node)
            if node.attr.input_kind is InputKind.SCALAR:
                continue
            self.consts[f"_dt{k}"] = node.dtype
            self.emit(
                f"if not (type({name}) is _ndarray and {name}.dtype is _dt{k} "
                f"and {name}.ndim == {len(node.shape)}):"
            )
            self.emit("    return _eager(leaves)")
            dims = [f"d{k}_{a}" for a in range(len(node.shape))]
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
            self.emit(f"t{nid(node)} = {rule(node, args)}")
        else:
            self.steps[f"n{nid(node)}"] = node
            self.emit(f"t{nid(node)} = _step(n{nid(node)}, [{', '.join(args)}], leaves)")

    def _kernel(self, kernel: Kernel) -> None:
        plan = self.plans[kernel.name]
        args = ["_nthreads()"] + [dim_expr(d) for d in kernel.domain]
        args += self._arrays(plan.loads)
        for o in kernel.outputs:
            temp = self.reuse.get(o.id)
            if temp is not None:  # in place, over a temporary only this kernel reads
                self.emit(f"t{nid(o)} = {self.arrays.get(temp.id, self.ref(temp))}")
                self.pointers[o.id] = self.pointers[temp.id]
                continue
            self.consts[f"_odt{nid(o)}"] = o.dtype
            self.emit(f"t{nid(o)} = _empty({shape_expr(o.shape)}, _odt{nid(o)})")
            self.fresh.add(o.id)
        args += [a for s in plan.scalars for a in scalar_args(self.ref(s), s.dtype)]
        args += self._arrays(kernel.outputs)
        self.emit(f"_k_{kernel.name}({', '.join(args)})")

    def _arrays(self, nodes: list[Node]) -> list[str]:
        """Pointer and byte strides of each array, in C parameter order."""
        args = []
        for node in nodes:
            if node.id not in self.pointers:
                self.pointers[node.id] = self._pointer(node)
            args += self.pointers[node.id]
        return args

    def _pointer(self, node: Node) -> list[str]:
        """Emit the pointer (and strides) of ``node`` once; the names to pass for it."""
        name, ptr = self.ref(node), f"p_{self.ref(node)}"
        strides = [f"{ptr}_s{a}" for a in range(len(node.shape))]
        if node.id in self.fresh:  # our own np.empty: C-contiguous, strides from the shape
            self.emit(f"{ptr} = _fb({name})")
            item = str(node.dtype.itemsize)
            return [
                ptr,
                *(
                    " * ".join([item, *map(dim_expr, node.shape[a + 1 :])])
                    for a in range(len(node.shape))
                ),
            ]
        if node.id in self.unit_inner:  # the kernels index its last axis with stride 1
            item = node.dtype.itemsize
            self.emit(f"u_{name} = {name} if {name}.strides[-1] == {item} else _contiguous({name})")
            name = self.arrays[node.id] = f"u_{name}"
        self.emit("try:")
        self.emit(f"    {ptr} = _fb({name})")
        self.emit("except ValueError:  # not C-contiguous: by address")
        self.emit(f"    {ptr} = _ptr({name})")
        if strides:
            self.emit(f"{', '.join(strides)}{',' if len(strides) == 1 else ''} = {name}.strides")
        return [ptr, *strides]


def _has_minmax(kernel: Kernel) -> bool:
    return any(n.op in (Op.MAX, Op.MIN) for n in kernel.nodes)


def _used_only_in_kernels(node: Node, sched: Schedule) -> bool:
    return node.id not in {o.id for o in sched.graph.outputs} and not any(
        isinstance(s, NumpyStep) and node in s.node.inputs for s in sched.steps
    )
