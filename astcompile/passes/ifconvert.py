"""If-conversion: a cheap, pure ``if``/``else`` on scalars inside a loop becomes a select.

A branch on data (``if v > 0.5``) mispredicts about every other element on random data, ten to
twenty cycles each time; computing both sides and picking one (``c ? a : b``) costs a few
instructions, and a loop without branches is one GCC can vectorise. Before::

    %30 = if(%24, %20, %22)
      then():
        %26 = mul(%22, %22)              # s += v * v
        %27 = add(%20, %26)
        yield %27
      else():
        %29 = sub(%20, %22)              # s -= v
        yield %29
    %31 = result(%30) 0

After (both sides computed; the ``s +`` both share taken out of the select, so the value
carried round the loop waits for one add per iteration, not for an add and a select)::

    %26 = mul(%22, %22)
    %40 = neg(%22)
    %41 = where(%24, %26, %40)
    %31 = add(%20, %41)

A branch converts when it sits in a loop body, every value it gives back is a real or integer
scalar of one dtype on both sides, neither side checks or loops (a nested branch that converts
is fine) or stores, except one store each into the same element (``if v < lo: out[i] = lo``
``else: out[i] = v`` becomes ``out[i] = v < lo ? lo : v``, a clip written as a branch) and each side's ops are in :data:`COSTS` within :data:`ARM_BUDGET`. Ops left
out of the table are those that may fault or trap on the side not taken (integer division and
modulo, loads), or cost more than a misprediction (libm calls). ``x - q`` taken out as
``x + (-q)`` is the same number; a NaN ``q`` may come out with the other sign bit (IEEE 754
leaves the sign of a NaN result unspecified; C compilers reorder such operands already).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from astcompile.ir.graph import ConstAttr, Graph, IfAttr, Node, walk
from astcompile.ir.ops import COMPARISONS, Op
from astcompile.passes.rebuild import Scope, rebuild, scopes

#: op -> its cost in a converted side (roughly instructions). Anything else keeps the branch.
COSTS: dict[Op, int] = {
    **dict.fromkeys((Op.CONST, Op.DIM, Op.POS, Op.COPY, Op.RESULT), 0),
    **dict.fromkeys(COMPARISONS, 1),
    **dict.fromkeys(
        (Op.NEG, Op.ABS, Op.SQUARE, Op.ADD, Op.SUB, Op.MUL, Op.CAST, Op.WHERE, Op.SIGN),
        1,
    ),
    **dict.fromkeys((Op.MAXIMUM, Op.MINIMUM, Op.FMAX, Op.FMIN, Op.COPYSIGN), 1),
    **dict.fromkeys((Op.FLOOR, Op.CEIL, Op.TRUNC, Op.RINT), 1),
    **dict.fromkeys((Op.ISNAN, Op.ISINF, Op.ISFINITE, Op.SIGNBIT), 1),
    **dict.fromkeys((Op.LOGICAL_AND, Op.LOGICAL_OR, Op.LOGICAL_XOR, Op.LOGICAL_NOT), 1),
    **dict.fromkeys((Op.BITWISE_AND, Op.BITWISE_OR, Op.BITWISE_XOR, Op.INVERT), 1),
    **dict.fromkeys((Op.TRUEDIV, Op.SQRT, Op.RECIPROCAL), 4),
}
#: The most one side of a converted branch may cost.
ARM_BUDGET = 8
_KINDS = "biuf"
_BOOL = np.dtype(bool)  # the dtypes a select gives back (complex values keep their branch)


def ifconvert(graph: Graph) -> tuple[Graph, bool]:
    convert, stores = _convertible(graph)
    if not convert:
        return graph, False
    copies: dict[int, Node] = {}  # IF id -> its copy, for its RESULTs: see ``control``

    def rule(node: Node, inputs: tuple[Node, ...]) -> Node | None:
        if node.op is not Op.RESULT or node.inputs[0].id not in convert:
            return None
        branch = copies.get(node.inputs[0].id, inputs[0])  # the IF, where a STORE took its place
        then, orelse = (g.outputs[node.attr] for g in _arms(branch))
        return select(branch.inputs[0], then, orelse, node)

    def control(node: Node, copy: Node) -> Node | None:
        """A branch storing one element either way: one STORE of the selected value."""
        if node.id not in stores:
            return None
        copies[node.id] = copy
        a, b = (arm.effects[0] for arm in _arms(copy))  # inner branches are STOREs by now
        value = select(copy.inputs[0], a.inputs[1], b.inputs[1], a)
        return Node(Op.STORE, (a.inputs[0], value, *a.inputs[2:]), a.dtype, a.shape, a.attr, a.loc)

    return rebuild(graph, rule, frozenset(convert.keys() - stores.keys()), control)


def _arms(node: Node) -> tuple[Graph, Graph]:
    attr: IfAttr = node.attr
    return attr.then_graph, attr.else_graph


def _convertible(graph: Graph) -> tuple[dict[int, int], dict[int, Node]]:
    """IF node id -> the cost of its dearer side, for the branches that convert; and of those
    that store (one element either way, :func:`_one_store`), IF id -> the then side's STORE.
    Inner branches come first (their nodes precede the IF holding them), so an outer one can
    count an inner one that converts as its sides' cost, and its store as its side's."""
    level = scopes(graph)
    every = sorted(walk(graph.nodes()), key=lambda n: n.id)
    results: dict[int, list[Node]] = {}
    for node in every:
        if node.op is Op.RESULT and node.inputs[0].op is Op.IF:
            results.setdefault(node.inputs[0].id, []).append(node)
    found: dict[int, int] = {}
    stores: dict[int, Node] = {}
    for node in every:
        if node.op is Op.IF and len(level[node.id]) > 1 and _scalar_results(node, results):
            store = _one_store(node, stores)
            sides = zip(_arms(node), _side_stores(node, stores) if store else (None, None))
            cost = max(_arm_cost(arm, level, found, own) for arm, own in sides)
            if cost <= ARM_BUDGET:
                found[node.id] = cost
                if store is not None:
                    stores[node.id] = store
    return found, stores


def _side_stores(node: Node, stores: dict[int, Node]) -> list[Node | None]:
    """Each side's one effect as a STORE: itself, or the store of a branch that converts."""
    sides: list[Node | None] = []
    for arm in _arms(node):
        effect = arm.effects[0] if len(arm.effects) == 1 else None
        sides.append(stores.get(effect.id) if effect and effect.op is Op.IF else effect)
    return sides


def _one_store(node: Node, stores: dict[int, Node]) -> Node | None:
    """``if c: a[i] = p else: a[i] = q``: both sides store one scalar of one dtype into the
    same element (the same array, index nodes and attribute), so ``a[i] = c ? p : q`` stores
    what the branch stores, and raises where it raises. The then side's STORE, or None."""
    a, b = _side_stores(node, stores)
    if a is None or b is None or a.op is not Op.STORE or b.op is not Op.STORE:
        return None
    place = (a.inputs[0], *a.inputs[2:])
    if a.attr != b.attr or len(a.inputs) != len(b.inputs):
        return None
    if any(x is not y for x, y in zip(place, (b.inputs[0], *b.inputs[2:]))):
        return None
    p, q = a.inputs[1], b.inputs[1]
    return a if p.shape == q.shape == () and p.dtype == q.dtype and p.dtype.kind in _KINDS else None


def _scalar_results(node: Node, results: dict[int, list[Node]]) -> bool:
    then, orelse = _arms(node)
    pairs = list(zip(then.outputs, orelse.outputs))
    if not all(a.shape == b.shape == () and a.dtype == b.dtype for a, b in pairs):
        return False
    if not all(a.dtype.kind in _KINDS for a, _ in pairs):
        return False
    return all(r.dtype == pairs[r.attr][0].dtype for r in results.get(node.id, []))


def _arm_cost(
    arm: Graph, level: dict[int, Scope], found: dict[int, int], store: Node | None = None
) -> int:
    """What computing ``arm`` unconditionally costs; past the budget when it may not. Its own
    nodes are those of its level (a value CSE found around it is the enclosing level's).
    ``store``: its one STORE, which becomes the select's (the value it stores counts)."""
    if any(e.id not in found and e is not store for e in arm.effects):
        return ARM_BUDGET + 1
    cost = 0
    for n in (n for n in arm.nodes() if level[n.id][-1] == id(arm) and n is not store):
        if n.op is Op.IF:
            cost += found[n.id]
        elif n.shape != () or n.op not in COSTS:
            return ARM_BUDGET + 1
        else:
            cost += COSTS[n.op]
    return cost


# -- the select, with what both sides share taken out -----------------------------------------


def select(cond: Node, then: Node, orelse: Node, at: Node) -> Node:
    """``cond ? then : orelse``, an operation both sides apply to one value done once after
    the select (:data:`SINKS`)."""
    if then is orelse:
        return then
    for sink in SINKS:
        found = sink(cond, then, orelse, at)
        if found is not None:
            return found
    return Node(Op.WHERE, (cond, then, orelse), then.dtype, (), None, at.loc)


_SHARED = (Op.ADD, Op.SUB, Op.MUL)
_COMMUTES = (Op.ADD, Op.MUL)


def _same_op(cond: Node, a: Node, b: Node, at: Node) -> Node | None:
    """``c ? x + p : x + q`` -> ``x + (c ? p : q)`` (also ``-``, ``*``, ``x`` on either side)."""
    if a.op is not b.op or a.op not in _SHARED or not _plain(a, b):
        return None
    (a0, a1), (b0, b1) = a.inputs, b.inputs
    if a0 is b0:
        return _rebuilt(a, (a0, select(cond, a1, b1, at)), at)
    if a1 is b1:
        return _rebuilt(a, (select(cond, a0, b0, at), a1), at)
    if a.op in _COMMUTES and a0 is b1:
        return _rebuilt(a, (a0, select(cond, a1, b0, at)), at)
    if a.op in _COMMUTES and a1 is b0:
        return _rebuilt(a, (a1, select(cond, a0, b1, at)), at)
    return None


def _add_sub(cond: Node, a: Node, b: Node, at: Node) -> Node | None:
    """``c ? x + p : x - q`` -> ``x + (c ? p : -q)``, and the other way round."""
    if {a.op, b.op} != {Op.ADD, Op.SUB} or not _plain(a, b):
        return None
    add, sub = (a, b) if a.op is Op.ADD else (b, a)
    x, q = sub.inputs
    if x not in add.inputs:
        return None
    p = add.inputs[1] if add.inputs[0] is x else add.inputs[0]
    minus_q = Node(Op.NEG, (q,), sub.dtype, (), None, sub.loc)
    picked = select(cond, p, minus_q, at) if a is add else select(cond, minus_q, p, at)
    return _rebuilt(add, (x, picked), at)


def _one_side(cond: Node, a: Node, b: Node, at: Node) -> Node | None:
    """``c ? x + p : x`` -> ``x + (c ? p : -0.0)``: the other side adds the operation's exact
    identity (``-0.0`` leaves ``+0.0``, ``-0.0`` and NaN as they are), as ``x * 1`` and
    ``x - 0.0`` do."""
    flipped = b.op in _SHARED and a in b.inputs
    op_node, x = (b, a) if flipped else (a, b)
    if op_node.op not in _SHARED or x not in op_node.inputs or not _plain(op_node, op_node):
        return None
    if op_node.op is Op.SUB and op_node.inputs[0] is not x:
        return None
    p = op_node.inputs[1] if op_node.inputs[0] is x else op_node.inputs[0]
    unit = _identity(op_node)
    picked = select(cond, unit, p, at) if flipped else select(cond, p, unit, at)
    return _rebuilt(op_node, (x, picked), at)


def _identity(node: Node) -> Node:
    dtype = node.dtype
    value = 1 if node.op is Op.MUL else (-0.0 if node.op is Op.ADD else 0.0)
    value = float(value) if dtype.kind == "f" else int(value)
    return Node(Op.CONST, (), dtype, (), ConstAttr(value), node.loc)


def _truth(cond: Node, a: Node, b: Node, at: Node) -> Node | None:
    """A truth value picked against a constant is logic: ``c ? True : b`` -> ``b | c``,
    ``c ? False : b`` -> ``b & !c`` (``c ? a : K`` is ``!c ? K : a``), so a flag carried
    round a loop (a Python float become NumPy's) needs no select."""
    if not cond.dtype == a.dtype == b.dtype == _BOOL:
        return None
    if _is_const(a):
        when, other, value = cond, b, a.attr.value
    elif _is_const(b):
        when, other, value = _not(cond, at), a, b.attr.value
    else:
        return None
    if value:
        return Node(Op.LOGICAL_OR, (other, when), _BOOL, (), None, at.loc)
    return Node(Op.LOGICAL_AND, (other, _not(when, at)), _BOOL, (), None, at.loc)


def _is_const(node: Node) -> bool:
    return node.op is Op.CONST and node.shape == ()


def _not(node: Node, at: Node) -> Node:
    if node.op is Op.LOGICAL_NOT:
        return node.inputs[0]
    return Node(Op.LOGICAL_NOT, (node,), _BOOL, (), None, at.loc)


def _plain(a: Node, b: Node) -> bool:
    """Both real or integer (not bool: its ``+`` is ``or``), each operand of their dtype or
    a constant, so moving an operand between the two ops changes no conversion."""
    dtype = a.dtype
    if b.dtype != dtype or dtype.kind not in "iuf" or a.shape != () or b.shape != ():
        return False
    return all(i.dtype == dtype or i.op is Op.CONST for i in (*a.inputs, *b.inputs))


def _rebuilt(like: Node, inputs: tuple[Node, ...], at: Node) -> Node:
    return Node(like.op, inputs, like.dtype, (), like.attr, at.loc)


#: The rewrites ``select`` tries, in order; each gives the select or None.
SINKS: tuple[Callable[[Node, Node, Node, Node], Node | None], ...] = (
    _same_op,
    _add_sub,
    _one_side,
    _truth,
)
