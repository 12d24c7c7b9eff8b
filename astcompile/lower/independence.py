"""Whether the iterations of a ``for`` loop are independent: the proof behind parallel loops.

A loop may run its iterations on several threads (or SIMD lanes) only when no order of them
can change the result. The rule, checked on the graph before the loop is emitted:

* a ``for`` over ``range`` with a constant positive step, no loop-carried values and no
  ``break`` (a carried value or an early exit orders the iterations);
* every array the body *writes* is an argument or a buffer of the region (a root, never a
  loop-carried placeholder), and there is one axis of it along which **every** access of the
  body, read or write, is ``coef * i + offset`` for the loop variable ``i``, with the same
  constant ``coef != 0`` and ``offset`` (``D[i, j] = ...``, ``x[i] = x[i] * 2``): iteration
  ``i`` then touches only its own slab of that array;
* arrays the body only reads may be read anywhere; distinct roots never overlap (the wrapper
  runs calls whose written argument overlaps another argument eagerly, buffers are fresh).

Three more conditions are confirmed once the body is emitted (see
:mod:`astcompile.targets.c.structured_parallel`): the body returns no error (every index check
was proved in range, no ``assert`` and no size check could fire in a data-dependent order, so
a failing call raises what serial execution raises), and it needs no scratch buffer (threads
would share it). ``x[i] = x[i - 1] + 1``, ``x[i + 1] = ...`` next to a read of ``x[i]``, and
carried sums all fail the rule and stay serial.
"""

from __future__ import annotations

from dataclasses import dataclass

from astcompile.ir.graph import ConstAttr, DynIndex, Graph, IfAttr, InputKind, LoopAttr, Node
from astcompile.ir.ops import Op
from astcompile.lower.structured_plan import VIEW_OPS, StructPlan

Pos = tuple[int, int] | None  # (coef, offset): the index coef * i + offset; None: unknown/range


@dataclass(frozen=True)
class _Axis:
    """A view axis seen from its root: root index = start + step * view index."""

    root_axis: int | None  # None for a newaxis
    start: int | None  # None when not a known constant
    step: int


@dataclass(frozen=True)
class Access:
    root: Node | None  # None: memory we cannot name (a loop-carried placeholder)
    fixed: tuple[Pos, ...]  # per root axis: the position a single index fixes, else None
    write: bool


def independent(loop: Node, plan: StructPlan) -> bool:
    """Whether the iterations of ``loop`` provably touch disjoint memory (see the module)."""
    attr = loop.attr
    step = loop.inputs[2] if not attr.is_while else None
    if attr.is_while or attr.exits or attr.carried or not _positive_const(step):
        return False
    ivar = attr.body.inputs[0]
    accesses: list[Access] = []
    nodes = inner_nodes(attr.body, plan)
    inner, seen = {n.id for n in nodes}, set()
    for node in nodes:
        _node_accesses(node, ivar, plan, inner, seen, accesses)
    return _disjoint(accesses)


def _positive_const(node: Node | None) -> bool:
    return (
        node is not None
        and node.op is Op.CONST
        and isinstance(node.attr, ConstAttr)
        and node.attr.value > 0
    )


def inner_nodes(graph: Graph, plan: StructPlan) -> list[Node]:
    """Every node emitted inside ``graph``, nested loops and branches included."""
    nodes = []
    for node in plan.levels[id(graph)]:
        nodes.append(node)
        if isinstance(node.attr, LoopAttr):
            nodes += inner_nodes(node.attr.body, plan)
        elif isinstance(node.attr, IfAttr):
            nodes += inner_nodes(node.attr.then_graph, plan)
            nodes += inner_nodes(node.attr.else_graph, plan)
    return nodes


def _node_accesses(
    node: Node, ivar: Node, plan: StructPlan, inner: set, seen: set, out: list[Access]
) -> None:
    """The memory ``node`` touches when it runs: reads of its operands in memory, the target
    of a store. A lazy operand computed outside the loop is evaluated here: its reads count."""
    if node.id in seen or node.op in (Op.LOOP, Op.IF, Op.RESULT):
        return
    seen.add(node.id)
    for k, src in enumerate(node.inputs):
        if plan.rooted(src):
            if node.op is Op.STORE and k == 0:
                out.append(_access(src, node, ivar, plan, write=True))
            elif node.op not in VIEW_OPS:
                out.append(_access(src, None, ivar, plan, write=False))
        elif src.shape != () and src.id not in inner:
            _node_accesses(src, ivar, plan, inner, seen, out)


def _access(view: Node, store: Node | None, ivar: Node, plan: StructPlan, write: bool) -> Access:
    """Which root ``view`` (indexed by ``store``'s index, if a store target) lives in and what
    each root axis is fixed to."""
    root, axes, fixed = _resolve(view, ivar, plan)
    if root is not None and store is not None:
        axes, fixed = _apply(store, store.attr.index, axes, dict(fixed), ivar)
    if root is None or axes is None:
        return Access(root, (), write)
    return Access(root, tuple(fixed.get(a) for a in range(root.ndim)), write)


def _resolve(node: Node, ivar: Node, plan: StructPlan):
    """(root, view axes, fixed root positions) of an array in memory; root None if unknown."""
    if node.op is Op.STORE:
        return _resolve(node.inputs[0], ivar, plan)
    argument = node.op is Op.INPUT and node.attr.input_kind is InputKind.ARRAY
    if node.id in plan.buffers or argument or node in plan.hoisted:
        return node, [_Axis(a, 0, 1) for a in range(node.ndim)], {}
    if node.op not in VIEW_OPS:
        return None, None, {}
    root, axes, fixed = _resolve(node.inputs[0], ivar, plan)
    if root is None or axes is None:
        return root, None, fixed
    if node.op is Op.INDEX:
        return (root, *_apply(node, node.attr, axes, dict(fixed), ivar))
    if node.op is Op.TRANSPOSE:
        return root, [axes[p] for p in node.attr], fixed
    if node.op in (Op.REAL, Op.IMAG):
        return root, axes, fixed
    return root, None, fixed  # broadcast, reshape: positions unknown


def _apply(node: Node, items: tuple, axes: list | None, fixed: dict, ivar: Node):
    """Apply basic index ``items`` (of ``node``) to a view given by ``axes``."""
    if axes is None:
        return None, fixed
    out, k = [], 0
    for item in items:
        if item.kind == "newaxis":
            out.append(_Axis(None, 0, 1))
            continue
        axis = axes[k]
        k += 1
        if item.kind == "int":
            pos = _position(node, item.start, ivar)
            if axis.root_axis is not None:
                fixed[axis.root_axis] = _compose(axis, pos)
        else:
            start = item.start if item.kind == "slice" and isinstance(item.start, int) else None
            first = None if start is None or axis.start is None else axis.start + axis.step * start
            out.append(_Axis(axis.root_axis, first, axis.step * item.step))
    return out + axes[k:], fixed


def _compose(axis: _Axis, pos: Pos) -> Pos:
    if pos is None or axis.start is None:
        return None
    return (axis.step * pos[0], axis.start + axis.step * pos[1])


def _position(node: Node, start, ivar: Node) -> Pos:
    if isinstance(start, DynIndex):
        return shift(node.inputs[start.input], ivar)
    return (0, start) if isinstance(start, int) else None


def shift(node: Node, ivar: Node) -> Pos:
    """``node`` as ``coef * ivar + offset`` with integer constants, or None."""
    if node is ivar:
        return (1, 0)
    if node.op is Op.CONST and isinstance(node.attr, ConstAttr):
        value = node.attr.value
        return (0, int(value)) if node.dtype.kind in "iu" else None
    if node.op is Op.CAST and node.dtype.kind in "iu" and node.inputs[0].dtype.kind in "iu":
        return shift(node.inputs[0], ivar)
    if node.op in (Op.ADD, Op.SUB):
        a, b = (shift(x, ivar) for x in node.inputs)
        if a is None or b is None:
            return None
        sign = 1 if node.op is Op.ADD else -1
        return (a[0] + sign * b[0], a[1] + sign * b[1])
    return None


def _disjoint(accesses: list[Access]) -> bool:
    """Every written root has an axis on which all its accesses sit at one ``coef*i + off``."""
    written = {id(a.root) for a in accesses if a.write}
    if written and any(a.root is None for a in accesses):
        return False  # memory we cannot name may be what the body writes
    for root_id in written:
        mine = [a for a in accesses if id(a.root) == root_id]
        if any(not a.fixed for a in mine):
            return False
        ndim = len(mine[0].fixed)
        if not any(_same_slab([a.fixed[d] for a in mine]) for d in range(ndim)):
            return False
    return True


def _same_slab(positions: list[Pos]) -> bool:
    first = positions[0]
    return first is not None and first[0] != 0 and all(p == first for p in positions)
