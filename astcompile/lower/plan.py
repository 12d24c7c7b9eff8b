"""What a kernel's C needs to know, computed once: value levels, phases and array accesses.

* A value is *row-level* when it is constant across the inner (reduced, or last) axes: reduction
  results, scalars, and what is computed only from those. Others are *element-level*.
* ``avail[v]`` is the first loop phase in which a value can be used: a reduction computed in
  phase ``k`` is available from ``k + 1``. Each reduction runs in the phase where its operands
  are available; each array output is written in the phase its value becomes available.
* An *access* is one array read with one axis map (the same array broadcast two ways is two
  accesses).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from astcompile.ir.graph import ConstAttr, InputAttr, InputKind, Node
from astcompile.ir.ops import Kind, Op
from astcompile.lower.fastplan import keeps_unit_stride
from astcompile.passes.axes import inner_axes, operand_map
from astcompile.passes.schedule import Kernel, member_map, operand_context


@dataclass(frozen=True)
class Access:
    buffer: Node
    axis_map: tuple  # buffer axis -> domain axis or None

    @property
    def key(self) -> tuple:
        return (self.buffer.id, self.axis_map)


@dataclass
class KernelPlan:
    kernel: Kernel
    inner: tuple[int, ...]
    rows: tuple[int, ...]
    loads: list[Node] = field(default_factory=list)  # arrays read, in parameter order
    scalars: list[Node] = field(default_factory=list)  # scalar inputs passed by value
    accesses: dict[tuple, Access] = field(default_factory=dict)
    operand_access: dict[tuple[int, int], Access] = field(default_factory=dict)  # (node, k)
    elem: set[int] = field(default_factory=set)  # element-level member ids
    avail: dict[int, int] = field(default_factory=dict)
    phase_of: dict[int, int] = field(default_factory=dict)  # reduction id -> phase
    nphases: int = 0

    def touches_inner(self, axis_map: tuple) -> bool:
        return any(a in self.inner for a in axis_map if a is not None)


def unit_stride(plan: KernelPlan, axis_map: tuple, t: int, buffer: Node | None = None) -> bool:
    """Whether axis ``t`` of an array with ``axis_map`` is indexed with stride 1: it is the
    array's own last axis and follows the innermost loop axis, and the array is not a view
    whose last stride is never the item size (``x[::2]``, ``a.T``, ``z.real``), which the
    kernel reads with its own strides rather than have the wrapper copy it (one pass and one
    allocation fewer: the copy cost 10 us a call on the Python path)."""
    if buffer is not None and not keeps_unit_stride(buffer):
        return False
    return bool(plan.inner) and t == len(axis_map) - 1 and axis_map[t] == plan.inner[-1]


def unit_inner_buffers(plan: KernelPlan) -> set[int]:
    """Ids of the arrays read that the kernel indexes with a unit inner stride."""
    return {
        a.buffer.id
        for a in plan.accesses.values()
        if a.axis_map and unit_stride(plan, a.axis_map, len(a.axis_map) - 1, a.buffer)
    }


def is_scalar_const(node: Node) -> bool:
    return (
        node.op is Op.CONST and isinstance(node.attr, ConstAttr) and np.ndim(node.attr.value) == 0
    )


def is_scalar_input(node: Node) -> bool:
    """A scalar passed to the kernel by value: a scalar argument, or a size (``x.shape[0]``)."""
    if node.op is Op.DIM:
        return True
    return isinstance(node.attr, InputAttr) and node.attr.input_kind is InputKind.SCALAR


def plan_kernel(kernel: Kernel) -> KernelPlan:
    d = len(kernel.domain)
    inner = inner_axes(d, kernel.reduce_axes)
    plan = KernelPlan(kernel, inner, tuple(a for a in range(d) if a not in inner))
    members = kernel.member_ids()
    for node in kernel.nodes:
        _plan_operands(plan, node, members)
        _plan_level(plan, node, members)
    last_out = [
        plan.avail[o.id] for o in kernel.outputs if plan.touches_inner(member_map(o, kernel))
    ]
    plan.nphases = max([*plan.phase_of.values(), *last_out, -1]) + 1
    return plan


def _plan_operands(plan: KernelPlan, node: Node, members: set[int]) -> None:
    ctx_map, ctx_shape = operand_context(node, plan.kernel)
    for k, src in enumerate(node.inputs):
        if src.id in members or is_scalar_const(src):
            continue
        if is_scalar_input(src):
            if src not in plan.scalars:
                plan.scalars.append(src)
            continue
        access = Access(src, operand_map(ctx_map, ctx_shape, src.shape))
        access = plan.accesses.setdefault(access.key, access)
        plan.operand_access[(node.id, k)] = access
        if src not in plan.loads:
            plan.loads.append(src)


def _plan_level(plan: KernelPlan, node: Node, members: set[int]) -> None:
    elem = False
    avail = 0
    for k, src in enumerate(node.inputs):
        if src.id in members:
            elem |= src.id in plan.elem
            avail = max(avail, plan.avail[src.id])
        elif (node.id, k) in plan.operand_access:
            elem |= plan.touches_inner(plan.operand_access[(node.id, k)].axis_map)
    if node.op is Op.IOTA:  # an index: element-level when its axis is looped inside a row
        elem = member_map(node, plan.kernel)[node.attr] in plan.inner
    if node.kind is Kind.REDUCTION:
        plan.phase_of[node.id] = avail
        plan.avail[node.id] = avail + 1
    else:
        plan.avail[node.id] = avail
        if elem:
            plan.elem.add(node.id)


def phase_parts(
    plan: KernelPlan, out_maps: dict[int, tuple], k: int
) -> tuple[list[Node], list[Node]]:
    """(reductions, array outputs over the inner axes) computed in phase ``k``: what every
    target's row loop for that phase folds and stores."""
    reds = [n for n in plan.kernel.nodes if plan.phase_of.get(n.id) == k]
    outs = [
        o
        for o in plan.kernel.outputs
        if plan.touches_inner(out_maps[o.id]) and plan.avail[o.id] == k
    ]
    return reds, outs
