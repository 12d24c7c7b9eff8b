"""Matmul on the Triton target: ``a @ w`` and its elementwise epilogue as one kernel.

The scheduler leaves a matmul to NumPy (an extern op). The ``matmuls`` stage
(``astcompile/pipeline.py``; :func:`fused`: every schedule of a form's plan) runs
:func:`fuse_matmuls`, which turns each product of two 2-D arrays of a dtype the hand-written
kernel takes (float32, float64, integers:
:mod:`astcompile.kernels.triton_matmul`) into a :class:`MatmulKernel`: the tiled product,
followed in the same program by the elementwise kernel that alone reads it, when that kernel
runs over the product's shape. ``np.maximum(a @ w + b, 0)`` becomes::

    %3 = matmul(%a, %w)                    NumpyStep(%3)
    %5 = add(%3, %b); %6 = maximum(%5, 0)  Kernel(domain=(n, m), nodes=[%5, %6])

before, and ``MatmulKernel(domain=(n, m), product=%3, nodes=[%5, %6], outputs=[%6])`` after:
the bias and the ReLU are applied to the accumulator tile before its one store, and the
product is never written to memory. A product that other steps read too (or that leaves the
region) is stored as well; one with no such kernel is a kernel of its own. Other matmuls
(a 1-D or stacked operand, bool or complex values) stay NumPy steps.

The kernel function (:func:`matmul_functions`) calls ``tile_of`` and ``tile_product`` from the
hand-written kernel, then writes the epilogue with the elementwise emitter
(:class:`~astcompile.targets.triton.triton_kernel.TritonEmitter`) over the tile's 2-D indices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.lower.host_program import HostProgram
from astcompile.lower.ids import nid
from astcompile.lower.names import value_name
from astcompile.lower.plan import KernelPlan, plan_kernel
from astcompile.lower.source_notes import lines_of, short
from astcompile.lower.store_plan import StoreRegion
from astcompile.passes.schedule import Kernel, NumpyStep, Schedule, member_map
from astcompile.targets.base import dim_c
from astcompile.targets.triton.triton_kernel import TritonEmitter, loc_comment, out_name
from astcompile.targets.triton.triton_rules import tl_type
from astcompile.targets.triton.triton_source import FLAG_LINES, jit_head, parameters, scalar_types

PRODUCTS = (Op.MATMUL, Op.DOT)

#: The constexpr parameters of a matmul kernel (the launcher's tiles give their values).
CONSTEXPRS = ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")


@dataclass
class MatmulKernel(Kernel):
    """A tiled product over ``domain`` (its rows and columns), then ``nodes``: its epilogue."""

    product: Node | None = None

    @property
    def shared(self):
        """The product's shared (summed) axis: the columns of its left operand."""
        return self.product.inputs[0].shape[1]


def lowerable(node: Node) -> bool:
    """Whether ``node`` is a product the hand-written Triton matmul computes."""
    if node.op not in PRODUCTS or any(len(i.shape) != 2 for i in node.inputs):
        return False
    return node.dtype in (np.float32, np.float64) or node.dtype.kind in "iu"


def why_numpy(node: Node) -> str:
    """Why a product stays a NumPy step (for ``explain``)."""
    if any(len(i.shape) != 2 for i in node.inputs):
        return "not two 2-D operands"
    return f"no Triton matmul for {node.dtype}"


def _reads(step, node: Node) -> bool:
    """Whether ``step`` (None: a step already merged away) reads ``node``."""
    if isinstance(step, NumpyStep):
        return node in step.node.inputs
    if not isinstance(step, Kernel) or node.id in step.member_ids():
        return False
    return any(i is node for n in step.nodes for i in n.inputs)


def _readers(steps: list, node: Node) -> list[int]:
    """Indices of the steps that read ``node``."""
    return [k for k, step in enumerate(steps) if _reads(step, node)]


def _epilogue(step, product: Node) -> bool:
    """Whether kernel ``step`` can run after ``product`` in its tile: an elementwise kernel
    over the product's shape, reading it where the tile holds it."""
    if type(step) is not Kernel or step.reduce_axes or step.domain != tuple(product.shape):
        return False
    own = member_map(product, step)
    plan = plan_kernel(step)
    return all(a.axis_map == own for a in plan.accesses.values() if a.buffer is product)


def fuse_matmuls(sched: Schedule) -> None:
    """Each lowerable product of ``sched`` a :class:`MatmulKernel`, fused with the elementwise
    kernel that alone reads it where there is one; kernels renamed in order."""
    steps: list = list(sched.steps)
    buffers = set(sched.buffers)
    outputs = {o.id for o in sched.graph.outputs}
    for k, step in enumerate(steps):
        if not (isinstance(step, NumpyStep) and lowerable(step.node)):
            continue
        p = step.node
        readers = _readers(steps, p)
        if len(readers) == 1 and _epilogue(steps[readers[0]], p):
            epi = steps[readers[0]]
            stored = [p] if p.id in outputs else []
            steps[readers[0]] = MatmulKernel("", epi.domain, (), epi.nodes, stored + epi.outputs, p)
            steps[k] = None
            if not stored:
                buffers.discard(p.id)
        else:
            steps[k] = MatmulKernel("", tuple(p.shape), (), [], [p], product=p)
    sched.steps, sched.buffers = [s for s in steps if s is not None], buffers
    prefix = re.sub(r"\W", "_", sched.graph.name)
    for n, kernel in enumerate(s for s in sched.steps if isinstance(s, Kernel)):
        kernel.name = f"{prefix}_k{n}"


def fused(plan: Schedule | StoreRegion | HostProgram) -> None:
    """The ``matmuls`` stage: :func:`fuse_matmuls` on each schedule of a form's plan (a flat
    graph's, each store phase's, each segment's), in place."""
    schedules = [plan] if isinstance(plan, Schedule) else [k for _, k in plan.parts()]
    for kernels in filter(None, schedules):
        fuse_matmuls(kernels)


def matmul_note(step) -> str | None:
    """What ``explain`` says about a product in a Triton region's schedule, if any."""
    if isinstance(step, MatmulKernel):
        where = _source(step.product)
        if not step.nodes:
            return f"{where} in a Triton matmul kernel"
        ops = ", ".join(dict.fromkeys(n.op.name.lower() for n in step.nodes))
        return f"{where} in a Triton matmul kernel with its epilogue: {ops}"
    if isinstance(step, NumpyStep) and step.node.op in PRODUCTS:
        return f"{_source(step.node)} as a NumPy step ({why_numpy(step.node)})"
    return None


def _source(node: Node) -> str:
    return f"the matmul at {short(node.loc)}" if node.loc else "a matmul"


# -- the kernel function --------------------------------------------------------------------
def matmul_plan(kernel: MatmulKernel) -> KernelPlan:
    """The epilogue's plan, reading the product from the tile rather than from memory; the
    product's operands are its first arrays."""
    p = kernel.product
    outputs = [o for o in kernel.outputs if o is not p]
    plan = plan_kernel(Kernel(kernel.name, kernel.domain, (), kernel.nodes, outputs))
    plan.kernel, plan.avail[p.id] = kernel, 0
    plan.operand_access = {key: a for key, a in plan.operand_access.items() if a.buffer is not p}
    plan.accesses = {key: a for key, a in plan.accesses.items() if a.buffer is not p}
    operands = list(dict.fromkeys(p.inputs))
    plan.loads = operands + [b for b in plan.loads if b is not p and b not in operands]
    return plan


def matmul_body(e: TritonEmitter, product: Node) -> None:
    """The product's tile, then the epilogue over the tile's 2-D indices and the stores."""
    a, b = (value_name(x) for x in product.inputs)
    acc, dot = accumulation(product.dtype)
    e.emit("rows, cols = tile_of(tl.program_id(0), n0, n1, BLOCK_M, BLOCK_N, GROUP_M)")
    e.emit("acc = tile_product(")
    e.emit(f"    {a}, {a}_s0, {a}_s1, {b}, {b}_s0, {b}_s1, rows, cols, n0, n1, nk,")
    e.emit(f"    BLOCK_M, BLOCK_N, BLOCK_K, {acc}, {dot},")
    e.emit(")")
    e.emit("i0 = tl.broadcast_to(rows[:, None], [BLOCK_M, BLOCK_N])")
    e.emit("i1 = tl.broadcast_to(cols[None, :], [BLOCK_M, BLOCK_N])")
    e.emit("m = (i0 < n0) & (i1 < n1)")
    e.masked, e.shape = True, "[BLOCK_M, BLOCK_N]"
    cast = "" if acc == tl_type(product.dtype) else f".to({tl_type(product.dtype)})"
    e.emit(f"v{nid(product)} = acc{cast}{loc_comment(product)}")
    e.members.add(product.id)
    e.done.add(product.id)
    for o in e.kernel.outputs:
        e.value(o)
        if e.vector(e.out_maps[o.id]):
            e.store(o)
        else:  # a 1 x 1 product: no axis to index, but the tile is a block; one lane in bounds
            e.emit(f"tl.store({out_name(o)} + (i0 + i1) * 0, v{nid(o)}, mask=m){loc_comment(o)}")


def matmul_parameters(plan: KernelPlan) -> list[tuple[str, str]]:
    """The elementwise kernel's parameters with the shared size ``nk`` after the product's
    rows and columns, and the tile sizes as constexprs."""
    params = parameters(plan)[:-1]  # no BLOCK
    return [*params[:2], ("nk", "i64"), *params[2:], *((c, "constexpr") for c in CONSTEXPRS)]


def header(kernel: MatmulKernel) -> str:
    """The function's docstring: the product, its sizes and the user's lines."""
    a, b = (value_name(x) for x in kernel.product.inputs)
    sizes = tuple(dim_c(d) for d in (*kernel.domain, kernel.shared))
    then = ", then its epilogue" if kernel.nodes else ""
    where = lines_of([kernel.product, *kernel.nodes]) or "unknown lines"
    return f"{a} @ {b} over (rows, columns, shared) {sizes}{then}; from {where}"


def matmul_functions(kernel: MatmulKernel) -> tuple[str, KernelPlan]:
    """The source of ``kernel``'s ``@triton.jit`` function and its plan."""
    plan = matmul_plan(kernel)
    emitter = TritonEmitter(plan)
    matmul_body(emitter, kernel.product)
    head = jit_head(kernel.name, matmul_parameters(plan), header(kernel), scalar_types(plan))
    lines = [*head, FLAG_LINES[0], *emitter.lines, FLAG_LINES[1]]
    return "\n".join(lines) + "\n", plan


# -- dtypes ---------------------------------------------------------------------------------
def accumulation(dtype: np.dtype) -> tuple[str, bool]:
    """(accumulator dtype, through ``tl.dot``) of a product of ``dtype``: the hand-written
    kernel's (float32 and float64 as themselves, integers in 64 bits)."""
    from astcompile.kernels.triton_matmul import accumulation as kernel_accumulation

    _, acc, dot = kernel_accumulation(dtype)
    return acc, dot
