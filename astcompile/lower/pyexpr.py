"""Symbolic sizes and NumPy steps as Python source for the generated wrapper."""

from __future__ import annotations

from collections.abc import Sequence

from astcompile.ir.graph import ConstAttr, IndexItem, Node
from astcompile.ir.ops import Op
from astcompile.ir.shapes import Dim, DimOp, SymDim

_PY_OP = {DimOp.ADD: "+", DimOp.SUB: "-", DimOp.MUL: "*", DimOp.FLOORDIV: "//", DimOp.MOD: "%"}


def dim_expr(d: Dim) -> str:
    """Python for a size: ``d0_1`` is axis 1 of input 0."""
    if isinstance(d, int):
        return str(d)
    assert isinstance(d, SymDim)
    if d.op is DimOp.SYM:
        index, axis = d.source
        return f"d{index}_{axis}"
    a, b = (dim_expr(x) for x in d.args)
    if d.op is DimOp.MAX:
        return f"max({a}, {b})"
    return f"({a} {_PY_OP[d.op]} {b})"


def tuple_expr(items: Sequence[str]) -> str:
    """Python for a tuple of ``items``: ``(a,)``, ``(a, b)``, ``()``."""
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def shape_expr(shape: Sequence[Dim]) -> str:
    return tuple_expr([dim_expr(d) for d in shape])


def _item(item: IndexItem) -> str:
    if item.kind == "newaxis":
        return "None"
    start = dim_expr(item.start)
    if item.kind == "int":
        return start
    stop = f"{start} + {dim_expr(item.length)} * {item.step}"
    if item.step > 0:
        return f"{start}:{stop}:{item.step}"
    return f"slice({start}, _stop({stop}), {item.step})"


def item_expr(item: IndexItem) -> str:
    """Python for one static index item (``1:1 + (d0_0 - 2) * 1:1``, ``3``, ``None``)."""
    return _item(item)


def _index(node: Node, a: list[str]) -> str:
    """Without an integer item, a view even at 0-d (``t[...]``, which a store may write)."""
    items = [_item(i) for i in node.attr]
    if all(i.kind != "int" for i in node.attr):
        items.append("...")
    return f"{a[0]}[{', '.join(items)}{',' if len(items) == 1 else ''}]"


#: op -> Python source of a NumPy step (views and products); others call the eager rule.
STEPS = {
    Op.INDEX: _index,
    Op.TRANSPOSE: lambda n, a: f"{a[0]}.transpose({tuple(n.attr)!r})",
    Op.RESHAPE: lambda n, a: f"_np.reshape({a[0]}, {shape_expr(n.attr)})",
    Op.BROADCAST_TO: lambda n, a: f"_np.broadcast_to({a[0]}, {shape_expr(n.attr)})",
    Op.REAL: lambda n, a: f"{a[0]}.real",  # views, as np.real/np.imag of an array
    Op.IMAG: lambda n, a: f"{a[0]}.imag",
    # products: their floating-point errors noted as flags (``_noted``, targets/wrapper.py)
    Op.MATMUL: lambda n, a: f"_noted(_np.matmul, {a[0]}, {a[1]})",
    Op.DOT: lambda n, a: f"_noted(_np.dot, {a[0]}, {a[1]})",
}


def const_value(node: Node):
    attr: ConstAttr = node.attr
    return attr.value if attr.weak else node.dtype.type(attr.value)  # as the eager backend
