"""Arrays in structured C code: a view is a pointer, an element offset and element strides.

Every array a structured region touches in memory is a :class:`View` of a *root*: an argument,
a buffer the wrapper allocated, or a loop-carried placeholder. Slicing, transposing and
broadcasting only change the offset and strides, never copy. Offsets are kept as readable C
expressions (``x_3_s0 * 2 + i0``): two accesses with the same text touch the same element,
which is how stores decide whether reading and writing one buffer may overlap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from astcompile.ir.graph import DynIndex, IndexItem
from astcompile.ir.shapes import Dim, is_runtime
from astcompile.lower.ids import run_key
from astcompile.targets.base import dim_c


def shape_c(shape: Sequence[Dim]) -> str:
    """``[n0_0, 3]``: sizes as the C code names them, for comments."""
    return "[" + ", ".join(dim_c(d) for d in shape) + "]"


def add(a: str, b: str) -> str:
    if a == "0":
        return b
    if b == "0":
        return a
    return f"{a} + {b}"


def mul(a: str, b: str) -> str:
    if "0" in (a, b):
        return "0"
    if a == "1":
        return b
    if b == "1":
        return a
    wrap = lambda s: f"({s})" if " + " in s or " - " in s else s
    return f"{wrap(a)} * {wrap(b)}"


def contiguous_strides(shape: Sequence[Dim]) -> tuple[str, ...]:
    strides, acc = [], "1"
    for d in reversed(shape):
        strides.append(acc)
        acc = mul(acc, dim_c(d))
    return tuple(reversed(strides))


@dataclass(frozen=True)
class View:
    ptr: str  # a typed C pointer variable
    offset: str
    strides: tuple[str, ...]
    alias: frozenset[int]  # ids of the memory roots this view may touch

    def address(self, idx: Sequence[str]) -> str:
        off = self.offset
        for i, s in zip(idx, self.strides):
            off = add(off, mul(i, s))
        return off

    def at(self, idx: Sequence[str]) -> str:
        return f"{self.ptr}[{self.address(idx)}]"

    def base_pointer(self) -> str:
        return self.ptr if self.offset == "0" else f"{self.ptr} + {self.offset}"


def part_view(view: View, part_ctype: str, imag: bool) -> View:
    """``z.real`` or ``z.imag`` of a complex view: the same memory seen as ``part_ctype``
    values, two per element (NumPy's interleaved layout), so stores through it reach ``z``."""
    offset = add(mul(view.offset, "2"), "1" if imag else "0")
    strides = tuple(mul(s, "2") for s in view.strides)
    return View(f"(({part_ctype}*){view.ptr})", offset, strides, view.alias)


def int_start(item: IndexItem, dyn: Callable[[int], str]) -> str:
    """The C index of an "int" item (a size expression, or a checked runtime index local), or
    the first index of a slice (for a "dslice", the clipped start local)."""
    if item.kind == "dslice":
        return slice_start(item)
    return dyn(item.start.input) if isinstance(item.start, DynIndex) else dim_c(item.start)


def slice_start(item: IndexItem) -> str:
    """The C local holding a "dslice"'s clipped start (its length is ``dim_c(item.length)``)."""
    return f"lo{run_key(item.length.args[0])}"


def _stretch(d: Dim, out: Dim) -> str | None:
    """How an axis of size ``d`` indexes into a broadcast result axis of size ``out``: "0"
    (always stretched), a C condition (a size known only at run time may be 1), or None."""
    if d == 1 and out != 1:
        return "0"
    if d != out and d != 1 and (is_runtime(d) or is_runtime(out)):
        return f"{dim_c(d)} == 1"
    return None


def _stretched(d: Dim, out: Dim, value: str) -> str:
    how = _stretch(d, out)
    if how is None or how == "0":
        return value if how is None else "0"
    return f"({how} ? 0 : {value})"


def index_view(view: View, items: Sequence[IndexItem], dyn: Callable[[int], str]) -> View:
    """``view[items]``: the same memory with a new offset and strides."""
    off, strides, axis = view.offset, [], 0
    for item in items:
        if item.kind == "newaxis":
            strides.append("0")
            continue
        s = view.strides[axis]
        axis += 1
        off = add(off, mul(int_start(item, dyn), s))
        if item.kind in ("slice", "dslice"):
            strides.append(mul(s, str(item.step)))
    return View(view.ptr, off, (*strides, *view.strides[axis:]), view.alias)


def transpose_view(view: View, perm: Sequence[int]) -> View:
    return View(view.ptr, view.offset, tuple(view.strides[p] for p in perm), view.alias)


def broadcast_strides(
    in_shape: Sequence[Dim], out_shape: Sequence[Dim], strides: Sequence[str]
) -> tuple[str, ...]:
    """Strides of an array of ``in_shape`` broadcast to ``out_shape`` (0 on stretched axes)."""
    lead = len(out_shape) - len(in_shape)
    out = ["0"] * lead
    for a, d in enumerate(in_shape):
        out.append(_stretched(d, out_shape[lead + a], strides[a]))
    return tuple(out)


def broadcast_index(
    in_shape: Sequence[Dim], out_shape: Sequence[Dim], idx: Sequence[str]
) -> list[str]:
    """Index into an operand of ``in_shape`` for element ``idx`` of the broadcast result."""
    lead = len(out_shape) - len(in_shape)
    return [_stretched(d, out_shape[lead + a], idx[lead + a]) for a, d in enumerate(in_shape)]


def index_index(
    items: Sequence[IndexItem], in_ndim: int, idx: Sequence[str], dyn: Callable[[int], str]
) -> list[str]:
    """Index into ``x`` for element ``idx`` of ``x[items]`` (views over computed values)."""
    out, k = [], 0
    for item in items:
        if item.kind == "newaxis":
            k += 1
        elif item.kind == "int":
            out.append(int_start(item, dyn))
        else:
            first = slice_start(item) if item.kind == "dslice" else dim_c(item.start)
            out.append(add(first, mul(idx[k], str(item.step))))
            k += 1
    out.extend(idx[k:])
    assert len(out) == in_ndim
    return out
