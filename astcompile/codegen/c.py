"""C code generation: one readable C function per kernel.

Every kernel has the same shape. The domain's *row* axes (kept axes, or all but the last for an
elementwise kernel) are flattened into ``row``; ``{name}_row`` computes one row in phases, each
phase one loop nest over the *inner* axes. An array whose own last axis follows the innermost
loop is indexed with stride 1 there (the wrapper passes such arrays with a unit inner stride,
copying the rare one that has not), so GCC vectorises with contiguous loads and stores; one
loop per phase, not a unit and a strided copy of it, halves GCC's time.

Each phase walks the row in chunks: thread ``tid`` of
``nthr`` takes its share of them, and reductions combine per-chunk partial results in chunk
order, so a sum is the same for any thread count. How rows are spread over threads is the entry
function's business (:mod:`astcompile.codegen.c_entry`). Sizes and strides are arguments: a new
size never recompiles.
"""

from __future__ import annotations

import re

import numpy as np

from astcompile.codegen import reduce as red
from astcompile.codegen.c_entry import arr as _arr
from astcompile.codegen.c_entry import entry, parameters, struct
from astcompile.codegen.c_entry import out as _out
from astcompile.codegen.ctypes import ctype
from astcompile.codegen.lower import Operand, lower
from astcompile.codegen.names import location, value_name
from astcompile.codegen.plan import Access, KernelPlan, is_scalar_const, plan_kernel, unit_stride
from astcompile.graph.ir import Node
from astcompile.graph.ops import Kind, Op
from astcompile.passes.schedule import Kernel, member_map

#: Separate partial sums of a blocked sum (16 doubles: four AVX2 registers, four add chains).
LANES = 16
_CALL = re.compile(r"\b(?!astc_)[a-z_][a-z0-9_]*\(")

HEADER = '#include <stdint.h>\n#include <stdlib.h>\n#include <omp.h>\n#include "astc_math.h"\n'


def _v(node: Node) -> str:
    return f"v{node.id}"


class _Emitter:
    def __init__(self, plan: KernelPlan, aliased: frozenset[int] = frozenset()) -> None:
        self.plan = plan
        self.aliased = aliased
        self.kernel = plan.kernel
        self.lines: list[str] = []
        self.depth = 1
        self.access_ids = {key: k for k, key in enumerate(plan.accesses)}
        self.out_maps = {o.id: member_map(o, self.kernel) for o in self.kernel.outputs}

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def open(self, text: str) -> None:
        self.emit(text + " {")
        self.depth += 1

    def close(self, tail: str = "") -> None:
        self.depth -= 1
        self.emit("}" + tail)

    # -- array offsets ----------------------------------------------------------------------
    def _offset(self, base: str, axis_map: tuple, key: str) -> str:
        """Index expression; an array's own last axis on the innermost loop has stride 1 (the
        wrapper makes it so), so GCC sees contiguous vectors."""
        terms = [f"{base}_o{key}"]
        for t, a in enumerate(axis_map):
            if a in self.plan.inner:
                unit = unit_stride(self.plan, axis_map, t)
                terms.append(f"i{a}" if unit else f"i{a} * {base}_s{t}")
        return " + ".join(terms)

    def load(self, access: Access) -> str:
        k = self.access_ids[access.key]
        base = _arr(access.buffer)
        return f"{base}[{self._offset(base, access.axis_map, str(k))}]"

    def store(self, node: Node, value: str) -> str:
        base = _out(node)
        return f"{base}[{self._offset(base, self.out_maps[node.id], '')}] = {value};"

    # -- expressions ------------------------------------------------------------------------
    def operands(self, node: Node) -> list[Operand]:
        if node.op is Op.IOTA:  # the loop index of the domain axis its axis follows
            axis = member_map(node, self.kernel)[node.attr]
            index = "0" if axis is None else f"i{axis}"
            return [Operand(index, node.dtype)]
        ops = []
        for k, src in enumerate(node.inputs):
            if is_scalar_const(src):
                ops.append(Operand("", src.dtype, src.attr.weak, src.attr.value))
            elif (node.id, k) in self.plan.operand_access:
                ops.append(
                    Operand(self.load(self.plan.operand_access[(node.id, k)]), src.dtype)
                )
            elif src.id in self.kernel.member_ids():
                ops.append(Operand(_v(src), src.dtype))
            else:  # scalar input parameter
                weak = src.op is Op.DIM or src.attr.weak
                ops.append(Operand(f"s_{value_name(src)}", src.dtype, weak))
        return ops

    def value_stmt(self, node: Node) -> str:
        expr = lower(node, self.operands(node))
        return f"const {ctype(node.dtype)} {_v(node)} = {expr};{location(node)}"

    def reduction_input(self, node: Node) -> str:
        (operand,) = self.operands(node)
        expr = operand.expr if operand.value is None else repr(operand.value)
        if node.op in (Op.ANY, Op.ALL):  # truthiness, not a cast: (int)0.5 would be 0
            return f"(({expr}) != 0)"
        return f"(({red.acc_type(node)}){expr})"

    # -- one phase: a loop nest over the inner axes -----------------------------------------
    def phase(self, k: int) -> None:
        plan, nodes = self.plan, self.kernel.nodes
        reds = [n for n in nodes if plan.phase_of.get(n.id) == k]
        outs = [
            o
            for o in self.kernel.outputs
            if plan.touches_inner(self.out_maps[o.id]) and plan.avail[o.id] == k
        ]
        body = self._needed(reds, outs)
        self.emit(f"/* phase {k}: {self._describe(reds, outs)} */")
        for r in reds:
            for acc in red.accumulators(r):
                self.emit(f"{acc.ctype} t{r.id}{acc.suffix} = {acc.init};")
        if not plan.inner:
            self._body(body, reds, outs, "t")
        else:
            self._chunked(body, reds, outs)
        for r in reds:
            count = " * ".join(f"n{a}" for a in plan.inner) or "1"
            self.emit(
                f"const {ctype(r.dtype)} {_v(r)} = {red.finalize(r, f't{r.id}', count)};{location(r)}"
            )

    def _describe(self, reds: list[Node], outs: list[Node]) -> str:
        parts = [f"{r.op.name.lower()} {_v(r)}" for r in reds] + [f"write {_out(o)}" for o in outs]
        return ", ".join(parts) or "nothing"

    def _needed(self, reds: list[Node], outs: list[Node]) -> list[Node]:
        """Element-level members the phase computes per element, in program order."""
        need: dict[int, Node] = {}
        stack = [i for r in reds for i in r.inputs] + list(outs)
        members = self.kernel.member_ids()
        while stack:
            n = stack.pop()
            if n.id in need or n.id not in members or n.id not in self.plan.elem:
                continue
            need[n.id] = n
            stack.extend(n.inputs)
        return sorted(need.values(), key=lambda n: n.id)

    def _chunked(self, body: list[Node], reds: list[Node], outs: list[Node]) -> None:
        accs = [(r, a) for r in reds for a in red.accumulators(r)]
        self.emit("/* this thread's share of the row's chunks */")
        self.open("for (int64_t c = nch * tid / nthr; c < nch * (tid + 1) / nthr; c++)")
        self._chunk(body, reds, outs, self.plan.inner[0])
        if accs:
            self.open("if (nthr == 1)")
            self._combine(reds)
            self.close(" else {")
            self.depth += 1
            for r, a in accs:
                self.emit(f"A->p{r.id}{a.suffix}[c] = a{r.id}{a.suffix};")
            self.close()
        self.close()
        if accs:
            self.open("if (nthr > 1)")
            self.emit("/* partial results in chunk order: the same sum for any thread count */")
            self.emit("#pragma omp barrier")
            self.open("for (int64_t c = 0; c < nch; c++)")
            for r, a in accs:
                self.emit(f"const {a.ctype} a{r.id}{a.suffix} = A->p{r.id}{a.suffix}[c];")
            self._combine(reds)
            self.close()
            self.emit("#pragma omp barrier  /* all have read the partials: they may be reused */")
            self.close()

    def _combine(self, reds: list[Node]) -> None:
        for r in reds:
            for line in red.combine(r, f"t{r.id}", f"a{r.id}"):
                self.emit(line)

    def _chunk(self, body: list[Node], reds: list[Node], outs: list[Node], first: int) -> None:
        for r in reds:
            for acc in red.accumulators(r):
                self.emit(f"{acc.ctype} a{r.id}{acc.suffix} = {acc.init};")
        self.emit(f"const int64_t lo = c * ch, hi = lo + ch < n{first} ? lo + ch : n{first};")
        inner = self.plan.inner
        for a in inner[:-1]:
            bounds = ("lo", "hi") if a == first else ("0", f"n{a}")
            self.open(f"for (int64_t i{a} = {bounds[0]}; i{a} < {bounds[1]}; i{a}++)")
        last = inner[-1]
        bounds = ("lo", "hi") if last == first else ("0", f"n{last}")
        if self._blockable(body, reds, outs):
            self.emit(f"int64_t from{last} = {bounds[0]};  /* where the blocks leave off */")
            self._blocked_sums(body, reds, outs, last, bounds[1])
            bounds = (f"from{last}", bounds[1])
        self._simd_loop(body, reds, outs, last, bounds)
        for _ in inner[:-1]:
            self.close()

    def _blockable(self, body: list[Node], reds: list[Node], outs: list[Node]) -> bool:
        """Float64 sums over a float64 body without calls: worth several accumulators (one
        add chain waits on the add latency; a libm call per vector hides it anyway). Float32
        data summed in double already gets two chains from the widening, and GCC's
        vectoriser tangles the unrolled widening loop into element gathers (measured slower).
        """
        if not reds or any(r.op not in (Op.SUM, Op.MEAN) for r in reds):
            return False
        if any(n.dtype != np.float64 for n in [*body, *reds, *(i for r in reds for i in r.inputs)]):
            return False
        statements = [self.value_stmt(n) for n in body] + [self.reduction_input(r) for r in reds]
        strided = any(f"i{self.plan.inner[-1]} * " in line for line in statements) or outs
        return not strided and not any(_CALL.search(line) for line in statements)

    def _blocked_sums(self, body, reds, outs, axis: int, hi: str) -> None:
        """Whole blocks of ``LANES`` elements, each lane summed apart (GCC keeps the lanes in
        vector registers: several independent add chains), the lanes then added in order."""
        for r in reds:
            self.emit(f"{red.acc_type(r)} b{r.id}[{LANES}] = {{0}};")
        self.open(f"for (; from{axis} + {LANES} <= {hi}; from{axis} += {LANES})")
        self.emit(f"#pragma GCC unroll {LANES}")
        self.open(f"for (int64_t lane = 0; lane < {LANES}; lane++)")
        self.emit(f"const int64_t i{axis} = from{axis} + lane;")
        self._body(body, reds, outs, "b", "[lane]")
        self.close()
        self.close()
        for r in reds:
            self.emit(f"for (int64_t lane = 0; lane < {LANES}; lane++) a{r.id} += b{r.id}[lane];")

    def _simd_loop(self, body, reds, outs, axis: int, bounds: tuple) -> None:
        clauses = "".join(
            f" reduction({acc.omp}:a{r.id}{acc.suffix})"
            for r in reds
            for acc in red.accumulators(r)
        )
        self.emit(f"#pragma omp simd{clauses}")
        self.open(f"for (int64_t i{axis} = {bounds[0]}; i{axis} < {bounds[1]}; i{axis}++)")
        self._body(body, reds, outs, "a")
        self.close()

    def _body(self, body, reds, outs, acc: str, lane: str = "") -> None:
        for n in body:
            self.emit(self.value_stmt(n))
        for r in reds:
            self.emit(f"const {red.acc_type(r)} in{r.id} = {self.reduction_input(r)};")
            for line in red.update(r, f"{acc}{r.id}{lane}", f"in{r.id}"):
                self.emit(line)
        for o in outs:
            self.emit(self.store(o, _v(o)))

    # -- the row function -------------------------------------------------------------------
    def row_function(self) -> list[str]:
        name, plan = self.kernel.name, self.plan
        self.lines = []
        self.depth = 0
        self.open(
            f"static void {name}_row(const {name}_args* A, int64_t row, int tid, int nthr)"
        )
        self._unpack()
        self._unravel()
        emitted: set[int] = set()
        for k in range(plan.nphases):
            self._row_values(k, emitted)
            self.phase(k)
        self._row_values(plan.nphases, emitted)
        for o in self.kernel.outputs:
            if not plan.touches_inner(self.out_maps[o.id]):
                self.emit(f"if (tid == 0) {self.store(o, _v(o))}")
        self.emit("(void)tid;")
        self.close()
        return self.lines

    def _row_values(self, k: int, emitted: set[int]) -> None:
        for n in self.kernel.nodes:
            if n.id in emitted or n.id in self.plan.elem or n.kind is Kind.REDUCTION:
                continue
            if self.plan.avail[n.id] <= k:
                emitted.add(n.id)
                self.emit(self.value_stmt(n))

    def _unpack(self) -> None:
        kernel = self.kernel
        for a in range(len(kernel.domain)):
            self.emit(f"const int64_t n{a} = A->n{a};")
        if self.plan.inner:
            self.emit("const int64_t ch = A->ch, nch = A->nch;")
        for buf in self.plan.loads:
            nm = _arr(buf)
            self.emit(f"const {ctype(buf.dtype)}* {self._restrict(buf)}{nm} = A->{nm};")
            for t in range(len(buf.shape)):
                self.emit(f"const int64_t {nm}_s{t} = A->{nm}_s{t};")
        for s in self.plan.scalars:
            self.emit(f"const {ctype(s.dtype)} s_{value_name(s)} = A->s_{value_name(s)};")
        for o in kernel.outputs:
            self.emit(f"{ctype(o.dtype)}* {self._restrict(o)}{_out(o)} = A->{_out(o)};")
            for t in range(len(o.shape)):
                self.emit(f"const int64_t {_out(o)}_s{t} = A->{_out(o)}_s{t};")

    def _restrict(self, node: Node) -> str:
        """``restrict``, unless the array shares its memory with another one (in place)."""
        return "" if node.id in self.aliased else "restrict "

    def _unravel(self) -> None:
        rows = self.plan.rows
        self.emit(f"/* row -> indices of axes {rows} */")
        self.emit("int64_t rem = row;")
        for a in reversed(rows):
            self.emit(f"const int64_t i{a} = rem % n{a}; rem /= n{a};")
        self.emit("(void)rem;")
        for key, access in self.plan.accesses.items():
            base = _arr(access.buffer)
            self.emit(
                f"const int64_t {base}_o{self.access_ids[key]} = {self._row_offset(base, access.axis_map)};"
            )
        for o in self.kernel.outputs:
            self.emit(
                f"const int64_t {_out(o)}_o = {self._row_offset(_out(o), self.out_maps[o.id])};"
            )

    def _row_offset(self, base: str, axis_map: tuple) -> str:
        terms = [f"i{a} * {base}_s{t}" for t, a in enumerate(axis_map) if a in self.plan.rows]
        return " + ".join(terms) or "0"


def kernel_source(
    kernel: Kernel, aliased: frozenset[int] = frozenset()
) -> tuple[str, str, KernelPlan]:
    """(C definition, cffi declaration, plan) of one kernel; ``aliased``: ids of the arrays
    that share memory (an output written in place over an input)."""
    plan = plan_kernel(kernel)
    srcs = sorted({str(n.loc) for n in kernel.nodes if n.loc})
    head = [
        (
            f"/* kernel {kernel.name}: domain {tuple(str(d) for d in kernel.domain)}, "
            f"reduced axes {kernel.reduce_axes}"
        ),
        f" * from {', '.join(srcs) or 'unknown lines'} */",
    ]
    body = _Emitter(plan, aliased).row_function()
    params = parameters(kernel, plan)
    decl = f"void {kernel.name}({', '.join(t for t, _ in params)});"
    return (
        "\n".join([*head, *struct(kernel, plan), *body, *entry(kernel, plan)]) + "\n",
        decl,
        plan,
    )
