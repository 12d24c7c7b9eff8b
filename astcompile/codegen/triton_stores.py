"""Stores into views on the Triton target: ``out[1:-1] = expr``, ``x[:, 0] = v``, ``a[::2] += b``.

A region whose only effects are stores (no loop, no branch, no run-time index) is lowered as
the flat graph of its outputs *and* its stored values (fused kernels, as any flat region),
then one store kernel per store, in program order. A store kernel writes its value, broadcast
to the view's shape and cast to the target's dtype, through the view's own pointer and element
strides (a negative step is a negative stride), masked at the ragged edge: nothing is copied
on the host, and the caller's array is the one written.

Every value is computed before the first store kernel runs, so this is exact only when each
read of a stored array (or of a view of it) comes before its first store, and no stored value
is a view of its own target (``out[1:] = out[:-1]`` reads what it writes). Otherwise
:func:`store_graph` says no and the region runs on the C target, as a loop region does.

    out[1:-1] = x[1:-1] * 2.0        # k0: t = x[1:-1] * 2.0       (the flat schedule)
    out[:, 0] = 5                    # s0: out[1:-1] <- t;  s1: out[:, 0] <- 5
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from astcompile.codegen.lower import Operand
from astcompile.codegen.pyexpr import STEPS, _item
from astcompile.codegen.triton_kernel import loc_comment
from astcompile.codegen.triton_rules import SIGNATURE, TL_TYPES, can_lower, convert
from astcompile.ir.attrs import DynIndex, IndexKind, InputAttr, InputKind
from astcompile.ir.graph import Graph, Node
from astcompile.ir.ops import Kind, Op, info
from astcompile.trace.build import index_shape

#: Views a store may write through (each a NumPy view of its input, never a copy).
TARGET_VIEWS = frozenset({Op.INDEX, Op.TRANSPOSE})
#: Index items a store kernel's view is made of (a run-time slice needs the loop's index).
STATIC_ITEMS = frozenset({IndexKind.SLICE, IndexKind.INT, IndexKind.NEWAXIS})


@dataclass(frozen=True)
class StoreGraph:
    """A store-only region as the Triton target runs it."""

    flat: Graph  #: the region's outputs followed by each store's value
    stores: tuple[Node, ...]  #: the STORE nodes, in program order
    stored_leaves: tuple[int, ...]  #: leaf indices of the arrays written (copied back from a GPU)
    outputs: int  #: how many of ``flat``'s outputs it returns (the region's, or ``after``'s)
    after: Graph | None = None  #: what runs after the stores (reads of what they wrote)


def base_of(store: Node) -> Node:
    """The array a (lowerable) store writes: an argument, or an array the region made."""
    return (_chain(store.inputs[0]) or [store.inputs[0]])[-1]


def _chain(target: Node) -> list[Node] | None:
    """The views from a store's target down to the array it writes, or None: an input, or a
    fresh array of the region (``out = np.zeros_like(x)``: a buffer of its own each call)."""
    chain = []
    while target.op in TARGET_VIEWS and len(target.inputs) == 1:
        chain.append(target)
        target = target.inputs[0]
    return [*chain, target] if target.op is Op.INPUT or info(target.op).fresh else None


def _static(items: tuple) -> bool:
    return all(i.kind in STATIC_ITEMS and not isinstance(i.start, DynIndex) for i in items)


def _castable(value: Node, target: Node) -> bool:
    if value.dtype not in TL_TYPES or target.dtype not in TL_TYPES:
        return False
    cast = Node(Op.CAST, (value,), target.dtype, value.shape, None, None, -1)
    return value.dtype == target.dtype or can_lower(cast)


def _lowerable(store: Node) -> bool:
    target, value = store.inputs[0], store.inputs[1]
    chain = _chain(target)
    items_ok = chain is not None and all(
        n.op is not Op.INDEX or _static(n.attr) for n in chain[:-1]
    )
    return (
        len(store.inputs) == 2
        and items_ok
        and _static(store.attr.index)
        and _castable(value, target)
    )


def _late(nodes: list[Node], stores: list[Node]) -> set[int] | None:
    """The nodes that run after the stores (they read a stored array after its last store,
    or such a node's value); None when some read falls between two stores into its array,
    or a stored value is a view of its target or comes after a store."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    chains: set[int] = set()
    for s in stores:
        chain = _chain(s.inputs[0]) or []
        first.setdefault(chain[-1].id, s.id)
        last[chain[-1].id] = s.id
        chains |= {n.id for n in chain[:-1]}
    alias = {i: i for i in first}  # node id -> the stored array it is (a view of)
    late: set[int] = set()
    for node in sorted(nodes, key=lambda n: n.id):
        if node.op is Op.STORE:
            if node.inputs[1].id in alias or node.inputs[1].id in late:
                return None
            continue
        if node.id in chains:
            continue
        bases = {alias[i.id] for i in node.inputs if i.id in alias}
        if any(i.id in late for i in node.inputs) or any(node.id > first[b] for b in bases):
            if any(node.id < last[b] for b in bases):
                return None
            late.add(node.id)
        if node.kind is Kind.VIEW and bases:
            alias[node.id] = bases.pop()
    return late


#: Nodes the second phase's wrapper makes itself (leaves, constants, sizes).
OWN = frozenset({Op.INPUT, Op.CONST, Op.DIM})


def _after(graph: Graph, nodes: list[Node], late: set[int]) -> tuple[list[Node], Graph]:
    """(the values the first phase hands on, the second phase's graph): the late nodes
    rebuilt over inputs that stand for the first phase's values, and the region's outputs."""
    carried: dict[int, tuple[Node, Node]] = {}  # first-phase node id -> (it, its stand-in)
    new: dict[int, Node] = {}

    def sub(node: Node) -> Node:
        if node.id in new or node.op in OWN:
            return new.get(node.id, node)
        if node.id not in carried:
            index = len(graph.inputs) + len(carried)
            attr = InputAttr(index, "carried", InputKind.ARRAY)
            carried[node.id] = (node, Node(Op.INPUT, (), node.dtype, node.shape, attr, node.loc))
        return carried[node.id][1]

    for node in sorted((n for n in nodes if n.id in late), key=lambda n: n.id):
        new[node.id] = Node(
            node.op, tuple(sub(i) for i in node.inputs), node.dtype, node.shape, node.attr, node.loc
        )
    outputs = [sub(o) for o in graph.outputs]
    inputs = [*graph.inputs, *(stand_in for _, stand_in in carried.values())]
    after = Graph(f"{graph.name}__after", inputs, outputs, [], graph.guards)
    return [node for node, _ in carried.values()], after


def _loops(nodes: list[Node]) -> bool:
    return any(n.kind is Kind.CONTROL or (n.op is Op.INDEX and len(n.inputs) > 1) for n in nodes)


def c_reason(graph: Graph) -> str:
    """Why a non-flat region runs on the C target, as ``explain`` says it."""
    if _loops(graph.nodes()):
        return "a loop region: no Triton lowering yet"
    return (
        "stores Triton cannot lower: a read between two stores into the same array, a value "
        "that is a view of its target, a run-time index or a cast without a Triton rule"
    )


def store_graph(graph: Graph) -> StoreGraph | None:
    """``graph`` as a flat graph and its stores, when the Triton target can lower it so."""
    nodes = graph.nodes()
    if _loops(nodes):
        return None
    stores = sorted(graph.effects, key=lambda n: n.id)
    if not stores or any(s.op is not Op.STORE or not _lowerable(s) for s in stores):
        return None
    late = _late(nodes, stores)
    if late is None:
        return None
    values = [s.inputs[1] for s in stores]
    bases = list({base_of(s).id: base_of(s) for s in stores}.values())
    made = [b for b in bases if b.op is not Op.INPUT]  # written after the kernels make them
    handed, after, name = list(graph.outputs), None, graph.name
    if late:
        handed, after = _after(graph, nodes, late)
        name = f"{graph.name}__before"
    flat = Graph(name, graph.inputs, [*handed, *values, *made], [], graph.guards)
    leaves = sorted(b.attr.index for b in bases if b.op is Op.INPUT)
    return StoreGraph(flat, tuple(stores), tuple(leaves), len(handed), after)


def _view(node: Node, base_ref: str) -> str:
    """Python for the view a store writes: its target's views over the input, then its index."""
    if node.op is Op.INPUT or not node.inputs or node.op not in TARGET_VIEWS:
        return base_ref
    return STEPS[node.op](node, [_view(node.inputs[0], base_ref)])


def store_name(graph: Graph, k: int) -> str:
    return re.sub(r"\W", "_", graph.name) + f"_s{k}"


def view_ndim(store: Node) -> int:
    return len(index_shape(store.inputs[0].shape, store.attr.index))


def store_lines(store: Node, k: int, name: str, value_ref: str, base_ref: str) -> list[str]:
    """The wrapper's lines running store ``k``: its view, then the store kernel's launch."""
    view = _view(store.inputs[0], base_ref)
    items = [_item(i) for i in store.attr.index]
    view = f"{view}[{', '.join([*items, '...'])}]"  # x[0, ...] is a 0-d view, x[0] a copy
    return [
        f"_v{k} = {view}",
        f"_k_{name}(_v{k}.shape, (_bcast({value_ref}, _v{k}.shape),), (), (_v{k},))",
    ]


def store_parameters(store: Node, ndim: int) -> list[tuple[str, str]]:
    """(name, signature type) of a store kernel's parameters, as ``parameters`` gives them."""
    value, target = store.inputs[1], store.inputs[0]
    params = [(f"n{a}", "i64") for a in range(ndim)]
    for buf, dtype in (("src", value.dtype), ("dst", target.dtype)):
        params.append((buf, f"*{SIGNATURE[dtype]}"))
        params += [(f"{buf}_s{a}", "i64") for a in range(ndim)]
    return [*params, ("BLOCK", "constexpr")]


def store_kernel(store: Node, name: str, ndim: int) -> str:
    """A store kernel: ``dst[i] = src[i]`` over the view's flat range, strided and masked."""
    value, target = store.inputs[1], store.inputs[0]
    params = ", ".join(
        f"{n}: tl.constexpr" if t == "constexpr" else (n if t.startswith("*") else f"{n}: tl.int64")
        for n, t in store_parameters(store, ndim)
    )
    axes = range(ndim)
    count = " * ".join(f"n{a}" for a in axes) or "1"
    lines = ["", "", "@triton.jit", f"def {name}({params}):"]
    lines.append(f'    """a store into a view{loc_comment(store).replace("  #", ":")}"""')
    lines.append("    e = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)")
    lines.append(f"    m = e < {count}")
    lines.append("    rem = e")
    for a in reversed(axes):
        lines.append(f"    i{a} = rem % n{a}")
        lines.append(f"    rem = rem // n{a}")
    for buf in ("src", "dst"):
        offset = " + ".join(f"i{a} * {buf}_s{a}" for a in axes) or "e * 0"  # a block
        lines.append(f"    {buf}_at = {buf} + ({offset})")
    x = convert(Operand("tl.load(src_at, mask=m)", value.dtype), target.dtype)
    lines.append(f"    tl.store(dst_at, {x}, mask=m){loc_comment(store)}")
    return "\n".join(lines) + "\n"
