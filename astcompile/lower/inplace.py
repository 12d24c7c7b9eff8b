"""Kernel outputs written over a temporary the region owns, instead of a new array.

``np.maximum(a @ w + b, 0.0)``: the matmul is an extern NumPy call whose result is a fresh
array nobody else sees. The epilogue kernel reads it once per element and writes an output of
the same shape and dtype at the same element, so it may write there: no second allocation
(whose first-touch page faults cost as much as the epilogue itself) and half the memory traffic.

Legal when the temporary is produced by an extern step that returns a new array (a ``fresh``
op of the op table: matmul, dot), is read by
this kernel only (not a region output, not read by any other step), the kernel is one
elementwise phase, and it reads the temporary exactly at the output's element (the same axis
map, one access). In the C the two pointers then lose ``restrict``: they alias.
"""

from __future__ import annotations

from astcompile.ir.graph import Node
from astcompile.ir.ops import Kind, is_fresh
from astcompile.lower.plan import plan_kernel
from astcompile.passes.schedule import Kernel, NumpyStep, Schedule, Step, member_map


def reused_buffers(sched: Schedule) -> dict[int, Node]:
    """Kernel output id -> the owned temporary whose buffer it is written into."""
    fresh = {
        s.node.id: s.node
        for s in sched.steps
        if isinstance(s, NumpyStep) and s.node.kind is Kind.EXTERN and is_fresh(s.node.op)
    }
    outputs = {o.id for o in sched.graph.outputs}
    reuse: dict[int, Node] = {}
    for k, step in enumerate(sched.steps):
        if not isinstance(step, Kernel) or step.reduce_axes:
            continue
        for o in step.outputs:
            temp = _candidate(step, o, fresh, set(reuse.values()))
            if temp is not None and temp.id not in outputs and _only_reader(sched.steps, k, temp):
                reuse[o.id] = temp
    return reuse


def _candidate(kernel: Kernel, out: Node, fresh: dict[int, Node], taken: set) -> Node | None:
    plan = plan_kernel(kernel)
    out_map = member_map(out, kernel)
    for temp in plan.loads:
        if temp.id not in fresh or temp in taken:
            continue
        maps = {a.axis_map for a in plan.accesses.values() if a.buffer.id == temp.id}
        same = temp.dtype == out.dtype and tuple(temp.shape) == tuple(out.shape) != ()
        if same and maps == {out_map}:
            return temp
    return None


def _only_reader(steps: list[Step], k: int, temp: Node) -> bool:
    for j, step in enumerate(steps):
        nodes = step.nodes if isinstance(step, Kernel) else [step.node]
        members = {n.id for n in nodes}
        reads = any(i.id == temp.id for n in nodes for i in n.inputs) and temp.id not in members
        if reads and j != k:
            return False
    return True
