"""Reductions in loop regions, written as fused kernels write them.

A region's reduction folds its input element by element (the lazy values it reads are
computed in its loop), in the chunks and blocked lanes of :mod:`astcompile.targets.c.chunks`, on
the calling thread: ``np.sum(X[i])`` in a compiled loop gives the bits ``np.sum(X, axis=1)``
gives in a fused kernel. The result is a scalar local or is stored into its buffer.

``argmax``/``argmin`` keep the index beside the best value and scan in C order on one thread
(an index has no rounding to reproduce, so no chunks): the first best element wins, and for
floats the first NaN, as in NumPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.ir.shapes import Dim
from astcompile.lower.ids import nid
from astcompile.lower.names import location as loc
from astcompile.lower.names import value_name
from astcompile.targets.base import dim_c
from astcompile.targets.c import c_reduce as red
from astcompile.targets.c.chunks import ReductionLoops, Work
from astcompile.targets.c.ctypes import ctype, supported_dtype
from astcompile.targets.c.views import View, contiguous_strides

#: arg reduction -> the comparison by which an element beats the best one so far.
ARG_PICKS: dict[Op, str] = {Op.ARGMAX: ">", Op.ARGMIN: "<"}
#: the same for floats, quiet: C's ``>`` on NaN raises the invalid flag, which NumPy's argmax
#: does not (a raised flag makes the region run its statements again: jit/fp_errors.py)
QUIET_PICKS: dict[Op, str] = {Op.ARGMAX: "__builtin_isgreater", Op.ARGMIN: "__builtin_isless"}


def can_arg_reduce(node: Node) -> bool:
    """Whether a loop region writes ``node`` as an arg reduction in C (complex values compare
    lexicographically in NumPy: those are not written)."""
    src = node.inputs[0].dtype
    return node.op in ARG_PICKS and supported_dtype(src) and src.kind in "biuf"


#: Result dtypes a leading-axes sum folds row by row in (the accumulator's own type, no
#: rounding in between; float32 sums keep the chunked double accumulators).
_ROW_SUM_DTYPES = frozenset(map(np.dtype, (np.float64, np.int64, np.uint64)))


def by_rows(node: Node) -> bool:
    """A sum whose folded axes all come before the kept ones (``X.sum(axis=0)``)."""
    axes = tuple(node.attr.axes)
    return (
        node.op is Op.SUM
        and node.dtype in _ROW_SUM_DTYPES
        and 0 < len(axes) < node.inputs[0].ndim
        and axes == tuple(range(len(axes)))
        and red.acc_type(node) == ctype(node.dtype)
    )


class LoopReductions(ReductionLoops):
    """Mixed into the structured emitter, which provides ``plan``, ``memo`` and ``element``
    (C for an element of a value, emitting the locals it needs)."""

    plan: Any  # structured_plan.StructPlan (it imports the emitter)
    memo: dict
    inner: tuple[int, ...]  # the axes the reduction being emitted folds
    extent: tuple[Dim, ...]  # the shape of what it folds
    element: Callable[[Node, list[str]], str]
    inside: int  # how many user loops the code being emitted is in
    alloc: Callable[..., None]
    nest: Callable[..., None]

    def reduction(self, node: Node, dst: View | None) -> None:
        """A reduction as a fused kernel computes it (:mod:`astcompile.targets.c.chunks`): the
        same chunks and blocked sums, so the same bits, on the calling thread; an arg
        reduction scans in C order (:meth:`arg_fold`). One result per element of the kept axes,
        into ``dst`` or (``dst`` None) a local."""
        if dst is not None and by_rows(node):
            return self.row_sum(node, dst)
        src, axes = node.inputs[0], tuple(node.attr.axes)
        kept = [a for a in range(src.ndim) if a not in axes]
        self.emit(f"/* {node.op.name.lower()} over axes {axes} */{loc(node)}")
        if dst is None:
            self.emit(f"{ctype(node.dtype)} {value_name(node)};")
        for a in kept:
            self.open(f"for (int64_t i{a} = 0; i{a} < {dim_c(src.shape[a])}; i{a}++)")
        if not kept:  # a block for the locals of this reduction
            self.emit("{")
            self.depth += 1
        fold = self.arg_fold if node.op in ARG_PICKS else self.chunked_fold
        self._result(node, dst, fold(node))
        for _ in range(max(len(kept), 1)):
            self.close()

    def chunked_fold(self, node: Node) -> str:
        """The folded axes in chunks (fold rows, accumulators); C for the result."""
        src, axes = node.inputs[0], tuple(node.attr.axes)
        idx = [f"i{a}" for a in range(src.ndim)]
        work = Work([node], lambda acc, lane: self._fold(node, idx, acc, lane), self._dtypes(node))
        self.inner, self.extent = axes, src.shape
        if axes:
            self.serial_chunks(work, "r")
        else:
            self.accumulate([node], "r")
            work.element("r", "")
        count = " * ".join(f"(int64_t){dim_c(src.shape[a])}" for a in axes) or "1"
        return red.finalize(node, f"r{nid(node)}", count)

    def row_sum(self, node: Node, dst: View) -> None:
        """A sum over leading axes (``X.T @ err``, ``X.sum(axis=0)``) folds row after row into
        a scratch row, as NumPy adds rows: each pass reads a contiguous row (a vector loop)
        rather than a strided column per result element. The scratch keeps ``dst`` unwritten
        until the sum is complete (the input may read the array ``dst`` holds)."""
        src, axes = node.inputs[0], tuple(node.attr.axes)
        shape = tuple(src.shape[len(axes) :])
        name, rows = f"s{nid(node)}", [f"k{a}" for a in axes]
        self.alloc(name, shape, node.dtype)
        acc = View(name, "0", contiguous_strides(shape), frozenset({-node.id}))
        self.emit(f"/* sum over axes {axes}, row by row */{loc(node)}")
        self.nest(shape, lambda row: self.emit(f"{acc.at(row)} = 0;"))
        for a in axes:
            self.open(f"for (int64_t k{a} = 0; k{a} < {dim_c(src.shape[a])}; k{a}++)")
        self.inside += 1  # a vector loop per row, never a thread team per row

        def add(row: list[str]) -> None:
            value = red.reduction_input(node, self.element(src, rows + row))
            self.emit(f"{acc.at(row)} += {value};")

        self.nest(shape, add)
        self.inside -= 1
        for _ in axes:
            self.close()
        kept = (lambda row: ["0"] * len(axes) + row) if node.attr.keepdims else (lambda row: row)
        self.nest(shape, lambda row: self.emit(f"{dst.at(kept(row))} = {acc.at(row)};"))

    def arg_fold(self, node: Node) -> str:
        """``argmax``/``argmin``: the flat C-order position (``k``) of the first best element
        over the folded axes; an element wins if it compares better, or if it is the first
        NaN (nothing compares better than a NaN once it is the best). C for the result."""
        src, axes = node.inputs[0], tuple(node.attr.axes)
        r, idx = f"r{nid(node)}", [f"i{a}" for a in range(src.ndim)]
        self.emit(f"int64_t {r}_k = 0, {r}_at = 0;")
        self.emit(f"{ctype(src.dtype)} {r}_v = 0;")
        for a in axes:
            self.open(f"for (int64_t i{a} = 0; i{a} < {dim_c(src.shape[a])}; i{a}++)")
        self.memo = {}
        v = self.element(src, idx)
        self.memo = {}
        wins = f"{r}_k == 0 || {v} {ARG_PICKS[node.op]} {r}_v"
        if src.dtype.kind == "f":  # the first NaN wins
            beats = f"{QUIET_PICKS[node.op]}({v}, {r}_v)"
            wins = f"{r}_k == 0 || {beats} || ({v} != {v} && {r}_v == {r}_v)"
        self.open(f"if ({wins})")
        self.emit(f"{r}_v = {v};")
        self.emit(f"{r}_at = {r}_k;")
        self.close()
        self.emit(f"{r}_k++;")
        for _ in axes:
            self.close()
        return f"{r}_at"

    def _result(self, node: Node, dst: View | None, result: str) -> None:
        """Sets the reduction's local, or its element of ``dst`` (the kept axes' ``i{a}``)."""
        src, axes = node.inputs[0], tuple(node.attr.axes)
        if dst is None:
            self.emit(f"{value_name(node)} = {result};")
            return
        out = ["0" if a in axes else f"i{a}" for a in range(src.ndim)]
        kept = [f"i{a}" for a in range(src.ndim) if a not in axes]
        self.emit(f"{dst.at(out if node.attr.keepdims else kept)} = {result};")

    def size(self, axis: int) -> str:
        return dim_c(self.extent[axis])

    def _fold(self, node: Node, idx: list[str], acc: str, lane: str) -> None:
        self.memo = {}
        expr = self.element(node.inputs[0], idx)
        self.memo = {}
        self.fold([node], [expr], acc, lane)

    def _dtypes(self, node: Node) -> tuple[np.dtype, ...]:
        """Dtypes of the reduction, its input and the values computed for each element."""
        found, stack, seen = [node.dtype, node.inputs[0].dtype], [node.inputs[0]], set()
        while stack:
            n = stack.pop()
            if n.id in seen or self.plan.is_scalar(n) or self.plan.rooted(n):
                continue
            seen.add(n.id)
            found.append(n.dtype)
            stack.extend(n.inputs)
        return tuple(found)
