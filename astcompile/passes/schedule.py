"""Scheduling: group a graph's nodes into fused kernels and NumPy steps.

Every compute node (elementwise or reduction) lands in a :class:`Kernel`, one loop nest over a
domain. Producers are inlined into their consumers' kernels (recomputed, never materialised) when
their axes fit the kernel's domain (:mod:`astcompile.passes.axes`); broadcast operands are read in
place with stride 0, so a broadcast temporary never exists. A reduction starts a kernel over its
input's shape; elementwise consumers of the reduction over the same domain join it as later
phases (row softmax: max, then sum of exp, then the output — one kernel). Kernels over the same
domain with no path between them merge (horizontal fusion).

Views of arrays and extern calls (matmul, any op the backend cannot generate) are
:class:`NumpyStep` s the wrapper runs with NumPy; their computed operands are materialised.

Before (``softmax``)::

    %1 = max(%x) axes=(1,), keepdims=True
    %2 = sub(%x, %1); %3 = exp(%2)
    %4 = sum(%3) axes=(1,), keepdims=True
    %5 = truediv(%3, %4)

After: ``Kernel(domain=(n, m), reduce_axes=(1,), nodes=[%1..%5], outputs=[%5])``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from astcompile.ir.graph import Graph, Node
from astcompile.ir.ops import Kind, Op
from astcompile.passes.axes import compatible, operand_map, value_map


@dataclass
class Kernel:
    name: str
    domain: tuple
    reduce_axes: tuple[int, ...]
    nodes: list[Node] = field(default_factory=list)  # members, in program order
    outputs: list[Node] = field(default_factory=list)  # members written to arrays

    def member_ids(self) -> set[int]:
        return {n.id for n in self.nodes}


@dataclass
class NumpyStep:
    """A view or an extern call the wrapper evaluates with NumPy."""

    node: Node


Step = Kernel | NumpyStep


@dataclass
class Schedule:
    graph: Graph
    steps: list[Step]
    buffers: set[int]  # ids of nodes that exist as arrays (or scalars) in the wrapper


def _is_compute(node: Node, supported: Callable[[Node], bool]) -> bool:
    if node.kind not in (Kind.ELEMENTWISE, Kind.REDUCTION) and node.op is not Op.BROADCAST_TO:
        return False
    if node.kind is Kind.REDUCTION and not node.attr.axes:
        return False
    return supported(node)


def _seed_key(node: Node) -> tuple:
    if node.kind is Kind.REDUCTION:
        return tuple(node.inputs[0].shape), tuple(node.attr.axes)
    return tuple(node.shape), ()


def operand_context(node: Node, kernel: Kernel) -> tuple[tuple, tuple]:
    """(axis map, shape) that ``node``'s operands broadcast into: a reduction reads its
    input at element level, over the whole domain."""
    if node.kind is Kind.REDUCTION:
        shape = tuple(node.inputs[0].shape)
    else:
        shape = tuple(node.shape)
    return value_map(shape, kernel.domain, kernel.reduce_axes), shape


def member_map(node: Node, kernel: Kernel) -> tuple | None:
    return value_map(node.shape, kernel.domain, kernel.reduce_axes)


def _fits(src: Node, consumer: Node, kernel: Kernel) -> bool:
    """Whether ``src`` may be computed inside ``kernel`` for ``consumer``."""
    have = member_map(src, kernel)
    ctx_map, ctx_shape = operand_context(consumer, kernel)
    if have is None or ctx_map is None:
        return False
    if src.kind is Kind.REDUCTION and tuple(src.inputs[0].shape) != kernel.domain:
        return False
    if src.kind is Kind.REDUCTION and tuple(src.attr.axes) != kernel.reduce_axes:
        return False
    return compatible(have, operand_map(ctx_map, ctx_shape, src.shape), src.shape)


class _Grouper:
    """Builds kernels; ``realized`` grows whenever a producer cannot be inlined."""

    def __init__(self, graph: Graph, compute: set[int]) -> None:
        self.graph = graph
        self.compute = compute
        self.realized: set[int] = {o.id for o in graph.outputs if o.id in compute}
        for node in graph.nodes():
            if node.id in compute and node.kind is Kind.REDUCTION:
                self.realized.add(node.id)
            if node.id not in compute:
                self.realized.update(i.id for i in node.inputs if i.id in compute)

    def group(self, seed: Node) -> Kernel:
        domain, axes = _seed_key(seed)
        kernel = Kernel("", domain, axes)
        members: dict[int, Node] = {}
        self._absorb(seed, kernel, members)
        kernel.nodes = sorted(members.values(), key=lambda n: n.id)
        return kernel

    def _absorb(self, node: Node, kernel: Kernel, members: dict[int, Node]) -> None:
        members[node.id] = node
        for src in node.inputs:
            if src.id in members or src.id not in self.compute or src.id in self.realized:
                continue
            if _fits(src, node, kernel):
                self._absorb(src, kernel, members)
            else:
                self.realized.add(src.id)

    def build(self) -> list[Kernel]:
        """Group every realized compute node, repeating until no new node must be realized."""
        while True:
            before = set(self.realized)
            seeds = [
                n for n in self.graph.nodes() if n.id in self.realized and n.id in self.compute
            ]
            kernels = [self.group(n) for n in seeds]
            if self.realized == before:
                return kernels


def _valid(kernel: Kernel) -> bool:
    """Every member fits the domain and reads member operands with matching axes."""
    ids = kernel.member_ids()
    for node in kernel.nodes:
        if member_map(node, kernel) is None or operand_context(node, kernel)[0] is None:
            return False
        if any(i.id in ids and not _fits(i, node, kernel) for i in node.inputs):
            return False
    return True


def _merged(a: Kernel, b: Kernel) -> Kernel | None:
    big, small = (
        (a, b)
        if len(a.domain) >= len(b.domain) and (a.reduce_axes or not b.reduce_axes)
        else (b, a)
    )
    if small.reduce_axes and small.reduce_axes != big.reduce_axes:
        return None
    if small.reduce_axes and small.domain != big.domain:
        return None
    nodes = {n.id: n for n in [*a.nodes, *b.nodes]}
    kernel = Kernel("", big.domain, big.reduce_axes, sorted(nodes.values(), key=lambda n: n.id))
    return kernel if _valid(kernel) else None


class _StepGraph:
    """Which step produces each node, for the no-cycle check of a merge."""

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.producer: dict[int, int] = {}
        for k, step in enumerate(steps):
            for node in _produced(step):
                self.producer[node.id] = k

    def deps(self, k: int) -> set[int]:
        found = {self.producer[i] for i in _read_ids(self.steps[k]) if i in self.producer}
        return found - {k}

    def reaches(self, src: int, dst: int, skip_direct: bool) -> bool:
        """Whether ``dst`` depends on ``src`` (through another step when ``skip_direct``)."""
        stack = [d for d in self.deps(dst) if not (skip_direct and d == src)]
        seen: set[int] = set()
        while stack:
            k = stack.pop()
            if k == src:
                return True
            if k not in seen:
                seen.add(k)
                stack.extend(self.deps(k))
        return False


def _produced(step: Step) -> list[Node]:
    return step.nodes if isinstance(step, Kernel) else [step.node]


def _read_ids(step: Step) -> set[int]:
    if isinstance(step, NumpyStep):
        return {i.id for i in step.node.inputs}
    ids = step.member_ids()
    return {i.id for n in step.nodes for i in n.inputs if i.id not in ids}


def _merge_all(steps: list[Step]) -> list[Step]:
    """Merge kernel pairs until none can merge: consumers first, then siblings."""
    while True:
        graph = _StepGraph(steps)
        pair = None
        for i, a in enumerate(steps):
            for j in range(i + 1, len(steps)):
                b = steps[j]
                if not (isinstance(a, Kernel) and isinstance(b, Kernel)):
                    continue
                if graph.reaches(i, j, True) or graph.reaches(j, i, True):
                    continue
                merged = _merged(a, b)
                if merged is not None:
                    pair = (i, j, merged)
                    break
            if pair:
                break
        if pair is None:
            return steps
        i, j, merged = pair
        steps = [s for k, s in enumerate(steps) if k not in (i, j)]
        steps.insert(min(i, j), merged)


def _order(steps: list[Step]) -> list[Step]:
    """Topological order of the steps (by data dependencies, ties in program order)."""
    graph = _StepGraph(steps)
    done: set[int] = set()
    order: list[Step] = []

    def visit(k: int) -> None:
        if k in done:
            return
        done.add(k)
        for d in sorted(graph.deps(k)):
            visit(d)
        order.append(steps[k])

    for k in sorted(range(len(steps)), key=lambda k: min(n.id for n in _produced(steps[k]))):
        visit(k)
    return order


def _set_outputs(steps: list[Step], graph: Graph) -> set[int]:
    """Mark kernel members that must be written to arrays; returns every buffer node id."""
    needed = {o.id for o in graph.outputs}
    for step in steps:
        needed |= _read_ids(step)
    buffers = {n.id for n in graph.nodes() if n.kind is Kind.LEAF}
    for step in steps:
        if isinstance(step, Kernel):
            step.outputs = [n for n in step.nodes if n.id in needed]
            buffers |= {n.id for n in step.outputs}
        else:
            buffers.add(step.node.id)
    return buffers


def _compute_ids(graph: Graph, supported: Callable[[Node], bool]) -> set[int]:
    """Nodes computed inside kernels; a broadcast is one only when just kernels read it
    (a broadcast leaving the region must stay a NumPy view)."""
    nodes = graph.nodes()
    compute = {n.id for n in nodes if n.op is not Op.BROADCAST_TO and _is_compute(n, supported)}
    consumers: dict[int, list[Node]] = {}
    for node in nodes:
        for i in node.inputs:
            consumers.setdefault(i.id, []).append(node)
    outputs = {o.id for o in graph.outputs}
    for node in nodes:
        fusable = node.op is Op.BROADCAST_TO and node.id not in outputs and supported(node)
        if fusable and all(c.id in compute for c in consumers.get(node.id, [])):
            compute.add(node.id)
    return compute


def schedule(graph: Graph, supported: Callable[[Node], bool]) -> Schedule:
    """Kernels and NumPy steps for ``graph``, in an order that respects dependencies."""
    compute = _compute_ids(graph, supported)
    steps: list[Step] = list(_Grouper(graph, compute).build())
    for node in graph.nodes():
        if node.id not in compute and node.kind not in (Kind.LEAF,):
            steps.append(NumpyStep(node))
    steps = _order(_merge_all(_order(steps)))
    buffers = _set_outputs(steps, graph)
    prefix = re.sub(r"\W", "_", graph.name)
    for k, step in enumerate(s for s in steps if isinstance(s, Kernel)):
        step.name = f"{prefix}_k{k}"
    return Schedule(graph, steps, buffers)
