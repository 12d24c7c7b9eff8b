"""The Triton target: the op -> Triton table, the Triton kernel emitter and its launcher.

The second implementation of :class:`~astcompile.targets.base.Target` (C is the first). It
shares the schedule, the kernel plan, the reduction rules and the Python wrapper with C; what
is its own is :mod:`astcompile.targets.triton.triton_rules` (op -> expression),
:mod:`astcompile.targets.triton.triton_kernel` (plan -> ``@triton.jit`` functions) and the launcher
below, which writes one call per kernel into the wrapper: sizes, the arrays read, scalars and
outputs; :class:`astcompile.runtime.triton_runtime.KernelLauncher` turns them into pointers,
element strides, a grid and a block at call time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from astcompile.ir.graph import Node
from astcompile.ir.ops import Kind, Op
from astcompile.lower.plan import KernelPlan
from astcompile.lower.pyexpr import dim_expr, tuple_expr
from astcompile.lower.reduce import RULES as REDUCTIONS
from astcompile.lower.reduce import rule
from astcompile.passes.schedule import Kernel
from astcompile.targets import target
from astcompile.targets.base import KernelCode, Launcher
from astcompile.targets.triton.grid import is_grid_reduction, scratch
from astcompile.targets.triton.matmul import (
    MatmulKernel,
    matmul_functions,
    matmul_parameters,
)
from astcompile.targets.triton.triton_rules import RULES, TL_TYPES, Rule, can_lower
from astcompile.targets.triton.triton_scan import is_scan_step, scan_name, scan_steps
from astcompile.targets.triton.triton_scan import scratch as scan_scratch
from astcompile.targets.triton.triton_source import kernel_functions, signature
from astcompile.targets.triton.triton_source import signatures as kernel_signatures

if TYPE_CHECKING:
    from astcompile.lower.host import WrapperSource


def kernel_call(name: str, sizes: str, *groups: list[str]) -> str:
    """A kernel's launch: its sizes, then the arrays it reads, its scalars, its outputs."""
    return f"_k_{name}({', '.join([sizes, *map(tuple_expr, groups)])})"


def kernel_lookup(name: str, rows: tuple, inner: tuple, reduces: bool, extra: str = "") -> str:
    """The wrapper's header line binding a kernel's launcher, once when it is defined."""
    return f"_k_{name} = _kernel({name!r}, {rows!r}, {inner!r}, {reduces}{extra})"


class TritonLauncher:
    """Calls of one wrapper's Triton kernels (``_kernel``: the region's kernel module's
    launcher factory, bound by the backend)."""

    def __init__(self, wrapper: WrapperSource, plans: dict[str, KernelPlan]) -> None:
        self.w, self.plans = wrapper, plans

    def prelude(self, kernels: list[Kernel]) -> list[str]:
        lines = []
        for k in kernels:
            plan = self.plans[k.name]
            if isinstance(k, MatmulKernel):
                lines.append(f"_k_{k.name} = _matmul({k.name!r}, {k.product.dtype.name!r})")
                continue
            # the part and finish functions' scratch buffers: (dtype, one per part), in order
            bufs = tuple((dtype.str, each) for _, dtype, each in scratch(plan))
            extra = f", {bufs!r}" if is_grid_reduction(plan) else ""
            lines.append(kernel_lookup(k.name, plan.rows, plan.inner, bool(k.reduce_axes), extra))
        for node in scan_steps(self.w.sched):
            rows, inner = tuple(range(node.ndim - 1)), (node.ndim - 1,)
            extra = f", {scan_scratch(node)}"
            lines.append(kernel_lookup(scan_name(node), rows, inner, True, extra))
        return lines

    def step(self, node: Node) -> bool:
        """A scan step runs its scan kernel (:mod:`astcompile.targets.triton.triton_scan`)."""
        if not is_scan_step(node):
            return False
        w = self.w
        w.alloc_node(node)
        sizes = tuple_expr([dim_expr(d) for d in node.shape])
        w.emit(kernel_call(scan_name(node), sizes, [w.ref(node.inputs[0])], [], [w.ref(node)]))
        return True

    def launch(self, kernel: Kernel) -> None:
        w, plan = self.w, self.plans[kernel.name]
        for o in kernel.outputs:
            w.alloc_node(o)
        dims = (
            [*kernel.domain, kernel.shared] if isinstance(kernel, MatmulKernel) else kernel.domain
        )
        sizes = tuple_expr([dim_expr(d) for d in dims])
        loads, scalars = [w.ref(b) for b in plan.loads], [w.ref(s) for s in plan.scalars]
        outs = [w.ref(o) for o in kernel.outputs]
        w.emit(kernel_call(kernel.name, sizes, loads, scalars, outs))


class TritonTarget:
    """Triton kernels, run on a GPU or in Triton's interpreter."""

    name = "triton"
    rules: dict[Op, Rule] = RULES

    def supports(self, node: Node) -> bool:
        if node.kind is Kind.REDUCTION:
            return can_reduce(node)
        if node.op is Op.BROADCAST_TO:
            return node.dtype in TL_TYPES
        return node.kind is Kind.ELEMENTWISE and can_lower(node)

    def in_loops(self, node: Node) -> bool:
        """C's answer: host loops (:mod:`astcompile.lower.host_program`) are planned as the loop regions
        of the C target, which takes a region Triton refuses, are."""
        return target("c").in_loops(node)

    def kernel(self, kernel: Kernel, aliased: frozenset[int]) -> KernelCode:
        if isinstance(kernel, MatmulKernel):
            source, plan = matmul_functions(kernel)
        else:
            source, plan = kernel_functions(kernel)
        return KernelCode(source, repr(self.signature(plan)), plan)

    def signature(self, plan: KernelPlan) -> dict[str, str]:
        """What ``triton.compile(ASTSource(...))`` takes for a planned kernel."""
        if isinstance(plan.kernel, MatmulKernel):
            return dict(matmul_parameters(plan))
        return signature(plan)

    def signatures(self, plan: KernelPlan) -> dict[str, dict[str, str]]:
        """Function name -> its signature, for every function of a planned kernel (a
        reduction's part and finish functions have their own)."""
        if isinstance(plan.kernel, MatmulKernel):
            return {plan.kernel.name: self.signature(plan)}
        return kernel_signatures(plan)

    def launcher(
        self, wrapper: WrapperSource, plans: dict[str, KernelPlan], reuse: dict[int, Node]
    ) -> Launcher:
        return TritonLauncher(wrapper, plans)


def can_reduce(node: Node) -> bool:
    """Whether Triton generates reduction ``node`` (the C target's conditions, real dtypes)."""
    src = node.inputs[0].dtype
    if node.op not in REDUCTIONS or src not in TL_TYPES or node.dtype not in TL_TYPES:
        return False
    if rule(node).nan_flag and node.dtype != src:
        return False
    return not rule(node).divides or node.dtype.kind == "f"


TRITON = TritonTarget()
