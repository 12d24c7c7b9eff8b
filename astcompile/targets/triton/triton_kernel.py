"""The Triton kernel emitter: one planned kernel -> readable ``@triton.jit`` functions.

It walks the same :class:`~astcompile.lower.plan.KernelPlan` as the C emitter, in Triton's
terms. Sizes and element strides are arguments (a new size never recompiles), every block
access is masked at the ragged edge, and every axis index is a value the offsets are made of:

* an **elementwise** kernel (no reduction) is one flat range over its whole domain, ``BLOCK``
  elements per program, each element's axis indices unravelled from its flat index;
* a kernel with **reductions** runs one program per row (its kept axes), its inner (reduced)
  axes flattened. Two functions are written: ``{name}_block`` holds the whole row in one block
  (every input loaded once, every phase in the same registers: row softmax reads ``x`` once)
  and ``{name}_loop`` walks the row in ``BLOCK``-sized steps, phase by phase, recomputing
  what a phase needs (rows too long for one block). The launcher picks by the row's length.

Reductions start from the identity of :mod:`astcompile.lower.reduce`, fold masked-off lanes
as that identity, accumulate in the same dtype as C (float64 for float sums) and combine the
lanes with ``tl.sum``/``tl.max``/``tl.min``/``tl.reduce``.
"""

from __future__ import annotations

import dataclasses
import linecache
import re

import numpy as np

from astcompile.ir.graph import Node
from astcompile.ir.ops import Kind, Op
from astcompile.lower import reduce as red
from astcompile.lower.ids import nid
from astcompile.lower.names import value_name
from astcompile.lower.operands import Operand, kernel_operands
from astcompile.lower.plan import Access, KernelPlan, phase_parts
from astcompile.lower.source_notes import short
from astcompile.passes.schedule import member_map
from astcompile.runtime.fpflags import KERNEL_BITS
from astcompile.targets.triton.triton_rules import constant, flag_checks, literal, lower, tl_type

#: fold op -> (lane fold of an accumulator and a value, the combine over the block's lanes).
FOLDS: dict[Op, tuple[str, str]] = {
    Op.ADD: ("{a} + {x}", "tl.sum({a}, axis=0)"),
    Op.MUL: ("{a} * {x}", "tl.reduce({a}, 0, _mul)"),
    Op.MAXIMUM: ("tl.maximum({a}, {x})", "tl.max({a}, axis=0)"),
    Op.MINIMUM: ("tl.minimum({a}, {x})", "tl.min({a}, axis=0)"),
    Op.LOGICAL_OR: ("tl.maximum({a}, {x})", "tl.max({a}, axis=0)"),
    Op.LOGICAL_AND: ("tl.minimum({a}, {x})", "tl.min({a}, axis=0)"),
}


def out_name(node: Node) -> str:
    return f"out_{nid(node)}"


def _v(node: Node) -> str:
    return f"v{nid(node)}"


def loc_comment(node: Node) -> str:
    """``  # x.max(axis=1)  (softmax.py:7)``: the user's line a statement computes."""
    if not node.loc:
        return ""
    text = linecache.getline(node.loc.filename, node.loc.line).strip()
    return f"  # {text}  ({short(node.loc)})" if text else f"  # {short(node.loc)}"


class TritonEmitter:
    """The statements of one kernel function; the body functions below say their order."""

    def __init__(self, plan: KernelPlan) -> None:
        self.plan, self.kernel = plan, plan.kernel
        self.rowwise = bool(self.kernel.reduce_axes)
        self.members = self.kernel.member_ids()
        self.out_maps = {o.id: member_map(o, self.kernel) for o in self.kernel.outputs}
        self.lines: list[str] = []
        self.depth = 1
        self.done: set[int] = set()  # values (and loaded accesses) in scope
        self.access_ids = {key: k for k, key in enumerate(plan.accesses)}
        self.finished: set[int] = set()  # reductions a grid launch loads (``r{id}``, per row)
        self.masked = False  # whether the lane mask ``m`` is in scope
        self.shape = "[BLOCK]"  # the lanes' (a matmul's tile: 2-D)

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    # -- indices and memory -----------------------------------------------------------------
    def vector(self, axis_map: tuple) -> bool:
        """Whether an array with ``axis_map`` is read as a block, else as one scalar (per row,
        or a 0-d array: always in bounds, so unmasked)."""
        if self.rowwise:
            return self.plan.touches_inner(axis_map)
        return any(a is not None for a in axis_map)

    def _offset(self, base: str, axis_map: tuple) -> str:
        terms = [f"i{a} * {base}_s{t}" for t, a in enumerate(axis_map) if a is not None]
        return " + ".join(terms) or "0"

    def load(self, access: Access) -> str:
        name = f"x{self.access_ids[access.key]}_{value_name(access.buffer)}"
        if name not in self.done:
            base = value_name(access.buffer)
            mask = ", mask=m" if self.vector(access.axis_map) else ""
            self.emit(f"{name} = tl.load({base} + ({self._offset(base, access.axis_map)}){mask})")
            self.done.add(name)
        return name

    def store(self, node: Node) -> None:
        base, axis_map = out_name(node), self.out_maps[node.id]
        mask = ", mask=m" if self.vector(axis_map) else ""
        off = self._offset(base, axis_map)
        self.emit(f"tl.store({base} + ({off}), {_v(node)}{mask}){loc_comment(node)}")

    # -- values -----------------------------------------------------------------------------
    def operands(self, node: Node) -> list[Operand]:
        zero = "tl.full([], 0, tl.int64)"
        return kernel_operands(self.plan, node, self.members, self.load, self._member, zero)

    def _member(self, node: Node) -> str:
        self.value(node)
        return _v(node)

    def value(self, node: Node) -> None:
        """Emit ``node``'s value (and what it needs) unless already in scope."""
        if node.id in self.done:
            return
        if node.kind is Kind.REDUCTION and node.id in self.finished:
            at = " + row" if self.plan.rows else ""
            self.emit(f"{_v(node)} = tl.load(r{nid(node)}{at})  # finished in an earlier launch")
            self.done.add(node.id)
            return
        if node.kind is Kind.REDUCTION:
            raise AssertionError(f"reduction {node} used before its phase")
        operands = self.operands(node)
        self.emit(f"{_v(node)} = {lower(node, operands)}{loc_comment(node)}")
        self.done.add(node.id)
        lanes = {o.expr: _lane_name(o.expr) for o in operands if o.expr.isidentifier()}
        lanes[_v(node)] = _lane_name(_v(node))
        named = [
            dataclasses.replace(o, expr=lanes.get(o.expr, self.lanes(o.expr))) for o in operands
        ]
        checks = flag_checks(node, named, lanes[_v(node)])
        for expr, name in lanes.items():  # each value as a block of lanes, once, if checked
            if name not in self.done and any(re.search(rf"\b{name}\b", c) for c in checks.values()):
                self.emit(f"{name} = {self.lanes(expr)}")
                self.done.add(name)
        for kind, hit in checks.items():
            self.flag(kind, hit)

    def flag(self, kind: str, hit: str, row: bool = False) -> None:
        """Set the kernel's flag ``kind`` (an errstate key) where ``hit`` holds in a lane (of
        the mask), or where the ``row``'s does."""
        hit = self.lanes(hit) if row else f"m & {hit}" if self.masked else hit
        self.emit(f"fp = _flag(fp, FP, {hit}, {KERNEL_BITS[kind]})")

    def lanes(self, expr: str) -> str:
        return f"tl.broadcast_to({expr}, {self.shape})"

    # -- reductions -------------------------------------------------------------------------
    def folded(self, node: Node) -> str:
        """The block of values a reduction folds in: masked-off lanes (and NaNs, kept in a
        flag) as the identity, in the accumulator's dtype."""
        (operand,) = self.operands(node)
        acc = red.acc_dtype(node)
        src = _lanes(operand.expr)
        x = f"({src} != 0).to(tl.int32)" if red.rule(node).truth else src
        if red.rule(node).truth:
            ident = literal(int(bool(red.identity(node))), "int32")
        else:
            ident = literal(red.identity(node), acc)
            x = x if operand.dtype == acc else f"{x}.to({tl_type(acc)})"
        keep = f"m & ({x} == {x})" if red.has_nan_flag(node) else "m"
        return f"tl.where({keep}, {x}, {ident})"

    def start(self, node: Node) -> None:
        """The lane accumulators of a looped reduction."""
        acc = np.dtype(np.int32) if red.rule(node).truth else red.acc_dtype(node)
        value = constant(red.identity(node), acc)
        self.emit(f"a{nid(node)} = tl.full([BLOCK], {value}, {tl_type(acc)})")
        if red.has_nan_flag(node):
            self.emit(f"a{nid(node)}_nan = tl.full([BLOCK], -1, tl.int64)")

    def fold(self, node: Node) -> None:
        lane, _ = FOLDS[red.rule(node).fold]
        a = f"a{nid(node)}"
        self.emit(f"{a} = {lane.format(a=a, x=self.folded(node))}")
        if red.has_nan_flag(node):
            src = _lanes(self.operands(node)[0].expr)
            self.emit(f"{a}_nan = tl.maximum({a}_nan, {_side(src)})")

    def finish(self, node: Node, block: str, nan: str | None) -> None:
        """The reduction's value from its lanes (``block``) and NaN lanes (``nan``)."""
        _, combine = FOLDS[red.rule(node).fold]
        total = combine.format(a=block)
        r, t = red.rule(node), tl_type(node.dtype)
        if r.fold in (Op.ADD, Op.MUL) and node.dtype.kind == "f":
            total = self.fold_flags(node, total)
        if r.truth:
            total = f"({total} != 0)"
        elif r.divides:
            count = " * ".join(f"n{a}" for a in self.plan.inner) or "1"
            div = f"tl.maximum({count} - {node.attr.ddof}, 0).to(tl.float64)"
            self.flag("invalid", f"({count} <= {node.attr.ddof})", row=True)  # 0/0: empty slice
            total = f"{_mean(node, total, div)}.to({t})"
        elif red.has_nan_flag(node):
            self.emit(f"c{nid(node)} = tl.max({nan}, axis=0)")
            total = _signed_zero(node, total, f"c{nid(node)}")
        if not r.truth and not r.divides and red.acc_dtype(node) != node.dtype:
            total = f"({total}).to({t})"
        self.emit(f"{_v(node)} = {total}{loc_comment(node)}")
        self.done.add(node.id)

    def fold_flags(self, node: Node, total: str) -> str:
        """A float sum's or product's ``total``, named, with the flags NumPy's fold raises:
        invalid where it is NaN (inf - inf, 0 * inf), overflow where it is past the result
        dtype's largest (a float32 total held in float64 too), a product's underflow where it
        is below its smallest normal. A NaN, infinity or zero read in sets them as well: the
        region's rerun in NumPy then warns exactly as NumPy does."""
        name, acc = f"t{nid(node)}", red.acc_dtype(node)
        self.emit(f"{name} = {total}")
        self.flag("invalid", f"({name} != {name})", row=True)
        self.flag("over", f"(tl.abs({name}) > {literal(np.finfo(node.dtype).max, acc)})", row=True)
        if red.rule(node).fold is Op.MUL:
            tiny = literal(np.finfo(node.dtype).tiny, acc)
            self.flag("under", f"(tl.abs({name}) < {tiny})", row=True)
        return name

    def reduce_block(self, node: Node) -> None:
        """A reduction over a row held in one block."""
        nan = None
        if red.has_nan_flag(node):
            src = _lanes(self.operands(node)[0].expr)
            nan = _side(src)
        self.finish(node, self.folded(node), nan)

    def reduce_phase_end(self, node: Node) -> None:
        nan = f"a{nid(node)}_nan" if red.has_nan_flag(node) else None
        self.finish(node, f"a{nid(node)}", nan)

    # -- the flattened index ----------------------------------------------------------------
    def unravel(self, flat: str, axes: tuple[int, ...]) -> None:
        """Axis indices ``i{a}`` of ``axes`` (C order) from the flat index ``flat``."""
        if not axes:
            return
        if len(axes) == 1:
            self.emit(f"i{axes[0]} = {flat}")
            return
        self.emit(f"rem = {flat}")
        for a in reversed(axes[1:]):
            self.emit(f"i{a} = rem % n{a}")
            self.emit(f"rem = rem // n{a}")
        self.emit(f"i{axes[0]} = rem")

    def count(self, axes: tuple[int, ...]) -> str:
        return " * ".join(f"n{a}" for a in axes) or "1"


def elementwise_body(e: TritonEmitter) -> None:
    """One flat range over the whole domain, ``BLOCK`` elements per program."""
    axes = tuple(range(len(e.kernel.domain)))
    e.emit("e = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)")
    e.emit(f"m = e < {e.count(axes)}")
    e.masked = True
    e.unravel("e", axes)
    for o in e.kernel.outputs:
        e.value(o)
        e.store(o)


def _row_start(e: TritonEmitter, grid_axis: int = 0) -> None:
    """``row`` (the program's row: grid axis ``grid_axis``) and its axis indices."""
    e.emit(f"row = tl.program_id({grid_axis}).to(tl.int64)")
    e.unravel("row", e.plan.rows)


def _inner_range(e: TritonEmitter, start: str) -> None:
    e.emit(f"r = {start}tl.arange(0, BLOCK)")
    e.emit(f"m = r < {e.count(e.plan.inner)}")
    e.masked = True
    e.unravel("r", e.plan.inner)


def block_body(e: TritonEmitter) -> None:
    """The whole row in one block: every value computed once, in program order."""
    _row_start(e)
    _inner_range(e, "")
    outputs = {o.id for o in e.kernel.outputs}
    for node in e.kernel.nodes:
        if node.kind is Kind.REDUCTION:
            e.reduce_block(node)
        if node.id in outputs:
            e.value(node)
            e.store(node)


def _row_values(e: TritonEmitter, k: int) -> None:
    """Row-level values available by phase ``k``, emitted before its loop (a value first
    defined inside a Triton loop is gone after it)."""
    for n in e.kernel.nodes:
        if n.id not in e.plan.elem and n.kind is not Kind.REDUCTION and e.plan.avail[n.id] <= k:
            e.value(n)


def phase_loop(e: TritonEmitter, reds: list[Node], outs: list[Node], start: str, stop: str) -> None:
    """One phase over the flat range ``[start, stop)`` in ``BLOCK``-sized steps: ``reds``
    folded into lane accumulators, ``outs`` computed and stored."""
    for r in reds:
        e.start(r)
    outside = set(e.done)
    e.emit(f"for r0 in range({start}, {stop}, BLOCK):")
    e.depth += 1
    e.emit("r = r0 + tl.arange(0, BLOCK)")
    e.emit(f"m = r < {stop}")
    masked, e.masked = e.masked, True
    e.unravel("r", e.plan.inner)
    for r in reds:
        e.fold(r)
    for o in outs:
        e.value(o)
        e.store(o)
    e.depth -= 1
    e.masked = masked
    e.done = outside  # a value first defined inside a Triton loop is gone after it


def loop_body(e: TritonEmitter) -> None:
    """The row in ``BLOCK``-sized steps, one loop per phase."""
    _row_start(e)
    for k in range(e.plan.nphases):
        reds, outs = phase_parts(e.plan, e.out_maps, k)
        _row_values(e, k)
        e.emit(f"# phase {k}: {', '.join(_v(n) for n in reds + outs) or 'nothing'}")
        phase_loop(e, reds, outs, "0", e.count(e.plan.inner))
        for r in reds:
            e.reduce_phase_end(r)
    _row_values(e, e.plan.nphases)
    for o in e.kernel.outputs:
        if not e.plan.touches_inner(e.out_maps[o.id]):
            e.value(o)
            e.store(o)


def _lane_name(expr: str) -> str:
    """The name of a value's block of lanes: ``l4`` for ``v4``, ``l_x0_a`` for a load."""
    return f"l{expr[1:]}" if re.fullmatch(r"v\d+", expr) else f"l_{expr}"


#: A float max/min's side lanes: a NaN (beats all), else the flat index of the last zero
#: folded and its sign bit (``2 * r + sign``, -1: none)
_NAN_CODE = 2**62


def _side(x: str) -> str:
    zero = f"2 * r.to(tl.int64) + (lm.signbit({x}) != 0).to(tl.int64)"
    return f"tl.where(m & ({x} != {x}), {_NAN_CODE}, tl.where(m & ({x} == 0), {zero}, -1))"


def _signed_zero(node: Node, total: str, code: str) -> str:
    """A float max/min from its lanes' ``total`` and side ``code``: NaN if one was folded, of
    equal zeros the later one, as NumPy's loop (C's ``astc_max``: ``x >= acc``)."""
    nan, zero = (literal(v, node.dtype) for v in (float("nan"), 0.0))
    signed = f"tl.where({code} % 2 == 1, -{zero}, {zero})"
    at_zero = f"tl.where(({total} == 0) & ({code} >= 0), {signed}, {total})"
    return f"tl.where({code} >= {_NAN_CODE}, {nan}, {at_zero})"


def _mean(node: Node, total: str, div: str) -> str:
    """A float32 mean's total past float32's range is not divided (``red.overflow_total``)."""
    if (big := red.overflow_total(node)) is None:
        return f"({total} / {div})"
    return f"tl.where(tl.abs({total}) >= {literal(big, np.float64)}, {total}, {total} / {div})"


def _lanes(expr: str) -> str:
    """``expr`` as a block of lanes: a value that does not vary along the reduced axis (a
    size-1 axis, a broadcast) is a scalar per row, which the row's mask cannot combine with."""
    return f"tl.broadcast_to({expr}, [BLOCK])"
