"""The store kernels of :mod:`astcompile.lower.store_plan` and the wrapper lines that run them.

A store kernel writes ``src`` (the value, broadcast to the view's shape: stride 0 along the
broadcast axes) into ``dst`` (the view itself: its pointer and element strides, negative for a
negative step), over the view's flat range, masked at the ragged edge, casting to the target's
dtype as NumPy's assignment does.
"""

from __future__ import annotations

import re

from astcompile.ir.attrs import index_shape
from astcompile.ir.graph import Graph, Node
from astcompile.ir.ops import Op
from astcompile.lower.operands import Operand
from astcompile.lower.pyexpr import STEPS, _item
from astcompile.lower.store_plan import TARGET_VIEWS
from astcompile.targets.triton.triton_kernel import loc_comment
from astcompile.targets.triton.triton_rules import SIGNATURE, convert
from astcompile.targets.triton.triton_source import jit_head
from astcompile.targets.triton.triton_target import kernel_call


def _view(node: Node, base_ref: str) -> str:
    """Python for the view a store writes: its target's views over the input, then its index."""
    if node.op is Op.INPUT or not node.inputs or node.op not in TARGET_VIEWS:
        return base_ref
    return STEPS[node.op](node, [_view(node.inputs[0], base_ref)])


def store_name(graph: Graph, k: int) -> str:
    return re.sub(r"\W", "_", graph.name) + f"_s{k}"


def view_ndim(store: Node) -> int:
    return len(index_shape(store.inputs[0].shape, store.attr.index))


def store_lines(store: Node, k: int, name: str, refs: tuple[str, str], overlaps: bool) -> list[str]:
    """The wrapper's lines running store ``k``: its view, then the store kernel's launch.
    ``refs``: the value's and the written array's names; a value that ``overlaps`` its target
    (``out[1:] = out[:-1]``) is copied first, as NumPy's assignment does."""
    value_ref, base_ref = refs
    view = _view(store.inputs[0], base_ref)
    items = [_item(i) for i in store.attr.index]
    view = f"{view}[{', '.join([*items, '...'])}]"  # x[0, ...] is a 0-d view, x[0] a copy
    value = f"_own({value_ref})" if overlaps else value_ref
    return [
        f"_v{k} = {view}",
        kernel_call(name, f"_v{k}.shape", [f"_bcast({value}, _v{k}.shape)"], [], [f"_v{k}"]),
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
    axes = range(ndim)
    count = " * ".join(f"n{a}" for a in axes) or "1"
    doc = f"a store into a view{loc_comment(store).replace('  #', ':')}"
    lines = jit_head(name, store_parameters(store, ndim), doc)
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
