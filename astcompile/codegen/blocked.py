"""Blocked float64 sums: several accumulators, so the adds do not wait on each other.

One ``omp simd reduction(+:...)`` loop keeps one vector of partial sums: every add waits for
the previous one (four cycles), and the FMA units idle. A float64 sum over a long enough
innermost row (at least ``2 * LANES`` elements) instead keeps ``LANES`` lanes, eight AVX2
registers and eight independent add chains, for the whole chunk: whole blocks of ``LANES``
elements, then blocks of one ``VECTOR``, then the last few elements one by one (a vectorised
remainder loop costs its set-up and horizontal sum on every innermost row, even when empty).
The lanes are added pairwise at the chunk's end, in a fixed order, so a sum is the same bits
for any thread count. Shorter rows take the plain vector loop: zeroing and adding up the
lanes would cost more than their elements.
"""

from __future__ import annotations

import re

import numpy as np

from astcompile.codegen import reduce as red
from astcompile.codegen.ids import nid
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op

#: Lanes of a blocked sum (32 doubles: eight AVX2 registers), then the width of one vector.
LANES, VECTOR = 32, 4
#: A call of a function other than our own ``astc_`` helpers (libm: already latency-bound).
CALL = re.compile(r"\b(?!astc_)[a-z_][a-z0-9_]*\(")


class BlockedSums:
    """Emitter methods for blocked sums (mixed into the kernel emitter, which provides
    ``emit``/``open``/``close``, ``value_stmt``, ``reduction_input``, ``_body`` and ``_nest``)."""

    def blockable(self, body: list[Node], reds: list[Node], outs: list[Node]) -> bool:
        """Float64 sums over a float64 body without calls: worth several accumulators (one
        add chain waits on the add latency; a libm call per vector hides it anyway). Float32
        data summed in double already gets two chains from the widening, and GCC's
        vectoriser tangles the unrolled widening loop into element gathers (measured slower).
        """
        if not reds or any(r.op not in (Op.SUM, Op.MEAN) for r in reds) or outs:
            return False
        if any(n.dtype != np.float64 for n in [*body, *reds, *(i for r in reds for i in r.inputs)]):
            return False
        statements = [self.value_stmt(n) for n in body] + [self.reduction_input(r) for r in reds]
        strided = any(f"i{self.plan.inner[-1]} * " in line for line in statements)
        return not strided and not any(CALL.search(line) for line in statements)

    def blocked_chunk(self, body: list[Node], reds: list[Node], first: int) -> None:
        """The chunk's loop nest twice: with lanes when its innermost rows are long, plain
        when they are short (chosen at run time, the same choice for every thread)."""
        last = self.plan.inner[-1]
        length = "hi - lo" if last == first else f"n{last}"
        self.emit(f"/* long innermost rows: {LANES} lanes; short ones: one vector loop */")
        self.open(f"if ({length} >= {2 * LANES})")
        for r in reds:
            self.emit(f"{red.acc_type(r)} b{nid(r)}[{LANES}] = {{0}};")
        self._nest(first, lambda axis, lo, hi: self._blocks(body, reds, axis, lo, hi))
        width = LANES // 2
        while width > 1:
            for r in reds:
                self.emit(
                    f"for (int64_t lane = 0; lane < {width}; lane++) "
                    f"b{nid(r)}[lane] += b{nid(r)}[lane + {width}];"
                )
            width //= 2
        for r in reds:
            self.emit(f"a{nid(r)} += b{nid(r)}[0] + b{nid(r)}[1];")
        self.close(" else {")
        self.depth += 1
        self._nest(first, lambda axis, lo, hi: self._loop(body, reds, [], axis, (lo, hi)))
        self.close()

    def _blocks(self, body: list[Node], reds: list[Node], axis: int, lo: str, hi: str) -> None:
        self.emit(f"int64_t from{axis} = {lo};  /* where the blocks leave off */")
        for width in (LANES, VECTOR):
            self.open(f"for (; from{axis} + {width} <= {hi}; from{axis} += {width})")
            self.emit(f"#pragma GCC unroll {width}")
            self.open(f"for (int64_t lane = 0; lane < {width}; lane++)")
            self.emit(f"const int64_t i{axis} = from{axis} + lane;")
            self._body(body, reds, [], "b", "[lane]")
            self.close()
            self.close()
        self.emit("/* the last few elements */")
        self._loop(body, reds, [], axis, (f"from{axis}", hi), simd=False)
