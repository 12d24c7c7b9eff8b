"""Reduction loops in C, shared by fused kernels and loop regions: chunks and blocked sums.

A reduction walks its inner axes in chunks of about :data:`CHUNK` elements along the first one.
Each chunk folds its elements into fresh accumulators (``a``); the chunk results are folded
into the total in chunk order. So a sum is the same bits whether one thread walks every chunk
(a loop region, a small kernel) or several threads take shares of the chunks (a fused kernel's
few long rows, :mod:`astcompile.targets.c.c_kernel`): ``np.sum`` inside a compiled loop equals the
fused kernel's ``np.sum`` of the same array, for any thread count.

Blocked float64 sums: one ``omp simd reduction(+:...)`` loop keeps one vector of partial sums,
and every add waits for the previous one (four cycles) while the FMA units idle. A float64 sum
over a long enough innermost row (at least ``2 * LANES`` elements) instead keeps ``LANES``
lanes, eight AVX2 registers and eight independent add chains, for the whole chunk: whole blocks
of ``LANES`` elements, then blocks of one ``VECTOR``, then the last few elements one by one (a
vectorised remainder loop costs its set-up and horizontal sum on every innermost row, even when
empty). The lanes are added pairwise at the chunk's end, in a fixed order. Shorter rows take the
plain vector loop: zeroing and adding up the lanes would cost more than their elements.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.lower.ids import nid
from astcompile.targets.c import c_reduce as red
from astcompile.targets.c.ctext import CText

#: Elements per chunk of a row: the unit of parallel work and of blocked summation.
CHUNK = 1 << 13
#: Lanes of a blocked sum (32 doubles: eight AVX2 registers), then the width of one vector.
LANES, VECTOR = 32, 4
#: A call of a function other than our own ``astc_`` helpers (libm: already latency-bound).
CALL = re.compile(r"\b(?!astc_)[a-z_][a-z0-9_]*\(")


@dataclass(frozen=True)
class Work:
    """What one element of a reduction loop does."""

    reds: list[Node]
    #: ``element(acc, lane)`` emits one element's statements, folding into ``{acc}{id}{lane}``
    element: Callable[[str, str], None]
    #: dtypes of the reductions, their inputs and every value computed per element
    dtypes: tuple[np.dtype, ...]
    #: never blocked: the element also stores (array outputs, kept values)
    plain: bool = False


def chunk_size(rest: str, ch: str) -> list[str]:
    """Statements setting ``ch`` (a variable, or a declaration of one), the elements of the
    first inner axis per chunk; ``rest``: C for the product of the other inner axes' lengths."""
    if rest == "1":
        return [f"{ch} = {CHUNK};"]
    return [
        # max(rest, 1): an empty inner axis must not divide by zero (SIGFPE kills the process)
        f"const int64_t rest = {rest} > 0 ? {rest} : 1;",
        f"{ch} = {CHUNK} / rest > 0 ? {CHUNK} / rest : 1;",
    ]


def chunk_count(first: str, ch: str) -> str:
    """C for the number of chunks of ``ch`` elements in ``first`` elements."""
    return f"({first} + {ch} - 1) / {ch}"


class ReductionLoops(CText):
    """Emitter methods for chunked reduction loops; the host says which axes a row loops
    (``inner``, the first one chunked, indexed by ``i{axis}``) and how long each is."""

    inner: tuple[int, ...]

    @abstractmethod
    def size(self, axis: int) -> str:
        """C for the length of inner axis ``axis``."""

    def accumulate(self, reds: list[Node], prefix: str) -> None:
        """Declare the accumulators ``{prefix}{id}`` of ``reds`` at their identities."""
        for r in reds:
            for acc in red.accumulators(r):
                self.emit(f"{acc.ctype} {prefix}{nid(r)}{acc.suffix} = {acc.init};")

    def fold(self, reds: list[Node], inputs: list[str], acc: str, lane: str = "") -> None:
        """Fold one element of each reduction (C expressions ``inputs``) into its accumulator."""
        for r, expr in zip(reds, inputs):
            self.emit(f"const {red.acc_type(r)} in{nid(r)} = {red.reduction_input(r, expr)};")
            for line in red.update(r, f"{acc}{nid(r)}{lane}", f"in{nid(r)}"):
                self.emit(line)

    def combine(self, reds: list[Node], total: str, part: str) -> None:
        for r in reds:
            for line in red.combine(r, f"{total}{nid(r)}", f"{part}{nid(r)}"):
                self.emit(line)

    def serial_chunks(self, work: Work, total: str) -> None:
        """Every chunk on this thread, into the totals ``{total}{id}`` (declared here). A
        row that fits one chunk folds straight into the totals (the same bits: each total
        starts at the identity its chunks start at): a
        3-element sum in a loop ran 20% slower through a chunk loop and a fold of its
        result, and still 15% slower until the branch was marked as the likely one."""
        first = self.inner[0]
        size = self.size(first)
        self.emit("/* in chunks as a fused kernel sums them: the same bits */")
        rest = " * ".join(self.size(a) for a in self.inner[1:]) or "1"
        for line in chunk_size(rest, "const int64_t ch"):
            self.emit(line)
        self.accumulate(work.reds, total)
        self.open(f"if (__builtin_expect({size} <= ch, 1))  /* one chunk */")
        self.chunk(work, first, into=total)
        self.close(" else {")
        self.depth += 1
        self.open(f"for (int64_t c = 0; c < {chunk_count(size, 'ch')}; c++)")
        self.chunk(work, first)
        self.combine(work.reds, total, "a")
        self.close()
        self.close()

    def chunk(self, work: Work, first: int, into: str | None = None) -> None:
        """Chunk ``c``: the loop nest over the inner axes, ``first`` cut to the chunk, into
        fresh accumulators ``a``; with ``into``, the only chunk, into the accumulators
        ``{into}``."""
        size = self.size(first)
        if into is None:
            self.accumulate(work.reds, "a")
            self.emit(f"const int64_t lo = c * ch, hi = lo + ch < {size} ? lo + ch : {size};")
        else:
            self.emit(f"const int64_t lo = 0, hi = {size};")
        acc = into or "a"
        if not work.plain and self.blockable(work):
            self.blocked_chunk(work, first, acc)
        else:
            self.row_nest(first, lambda axis, lo, hi: self.row_loop(work, axis, (lo, hi), acc))

    def row_nest(self, first: int, innermost: Callable[[int, str, str], None]) -> None:
        """Loops over the inner axes but the last, around ``innermost(axis, lo, hi)``."""
        for a in self.inner[:-1]:
            lo, hi = ("lo", "hi") if a == first else ("0", self.size(a))
            self.open(f"for (int64_t i{a} = {lo}; i{a} < {hi}; i{a}++)")
        last = self.inner[-1]
        innermost(last, *(("lo", "hi") if last == first else ("0", self.size(last))))
        for _ in self.inner[:-1]:
            self.close()

    def row_loop(
        self, work: Work, axis: int, bounds: tuple[str, str], acc: str = "a", simd: bool = True
    ) -> None:
        clauses = "".join(
            f" reduction({a.omp}:{acc}{nid(r)}{a.suffix})"
            for r in work.reds
            for a in red.accumulators(r)
        )
        if simd and not any(red.sequential(r) for r in work.reds):
            self.emit(f"#pragma omp simd{clauses}")
        self.open(f"for (int64_t i{axis} = {bounds[0]}; i{axis} < {bounds[1]}; i{axis}++)")
        work.element(acc, "")
        self.close()

    def blockable(self, work: Work) -> bool:
        """Float64 sums over a float64 body without calls: worth several accumulators (one
        add chain waits on the add latency; a libm call per vector hides it anyway). Float32
        data summed in double already gets two chains from the widening, and GCC's
        vectoriser tangles the unrolled widening loop into element gathers (measured slower).
        """
        if not work.reds or any(r.op not in (Op.SUM, Op.MEAN) for r in work.reds):
            return False
        if any(d != np.float64 for d in work.dtypes):
            return False
        statements = self.scratch(lambda: work.element("a", ""))
        strided = any(f"i{self.inner[-1]} * " in line for line in statements)
        return not strided and not any(CALL.search(line) for line in statements)

    def blocked_chunk(self, work: Work, first: int, acc: str = "a") -> None:
        """The chunk's loop nest twice: with lanes when its innermost rows are long, plain
        when they are short (chosen at run time, the same choice for every thread)."""
        last = self.inner[-1]
        length = "hi - lo" if last == first else self.size(last)
        self.emit(f"/* long innermost rows: {LANES} lanes; short ones: one vector loop */")
        self.open(f"if ({length} >= {2 * LANES})")
        for r in work.reds:
            self.emit(f"{red.acc_type(r)} b{nid(r)}[{LANES}] = {{0}};")
        self.row_nest(first, lambda axis, lo, hi: self._blocks(work, axis, lo, hi, acc))
        width = LANES // 2
        while width > 1:
            for r in work.reds:
                self.emit(
                    f"for (int64_t lane = 0; lane < {width}; lane++) "
                    f"b{nid(r)}[lane] += b{nid(r)}[lane + {width}];"
                )
            width //= 2
        for r in work.reds:
            self.emit(f"{acc}{nid(r)} += b{nid(r)}[0] + b{nid(r)}[1];")
        self.close(" else {")
        self.depth += 1
        self.row_nest(first, lambda axis, lo, hi: self.row_loop(work, axis, (lo, hi), acc))
        self.close()

    def _blocks(self, work: Work, axis: int, lo: str, hi: str, acc: str) -> None:
        self.emit(f"int64_t from{axis} = {lo};  /* where the blocks leave off */")
        for width in (LANES, VECTOR):
            self.open(f"for (; from{axis} + {width} <= {hi}; from{axis} += {width})")
            self.emit(f"#pragma GCC unroll {width}")
            self.open(f"for (int64_t lane = 0; lane < {width}; lane++)")
            self.emit(f"const int64_t i{axis} = from{axis} + lane;")
            work.element("b", "[lane]")
            self.close()
            self.close()
        self.emit("/* the last few elements */")
        self.row_loop(work, axis, (f"from{axis}", hi), acc, simd=False)
