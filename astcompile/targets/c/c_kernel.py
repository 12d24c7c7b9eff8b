"""C code generation: one readable C function per kernel.

Every kernel has the same shape. The domain's *row* axes (kept axes, or all but the last for an
elementwise kernel) are flattened into ``row``; ``{name}_rows`` computes a range of rows, each
in phases, each phase one loop nest over the *inner* axes. A value two phases need may be kept
in the output between them (:mod:`astcompile.lower.stash`); reductions walk the row in
chunks, float64 sums with several accumulators (:mod:`astcompile.targets.c.chunks`, shared with
the loops of loop regions). An array whose own last axis follows the
innermost loop is indexed with stride 1 there (the wrapper passes such arrays with a unit inner
stride, copying the rare one that has not), so GCC vectorises with contiguous loads and stores;
one loop per phase, not a unit and a strided copy of it, halves GCC's time.

Each phase walks the row in chunks: thread ``tid`` of
``nthr`` takes its share of them, and reductions combine per-chunk partial results in chunk
order, so a sum is the same for any thread count. How rows are spread over threads is the entry
function's business (:mod:`astcompile.targets.c.entry`). Sizes and strides are arguments: a new
size never recompiles.
"""

from __future__ import annotations

from astcompile.ir.graph import Node
from astcompile.ir.ops import Kind
from astcompile.lower.ids import nid
from astcompile.lower.names import location, value_name
from astcompile.lower.operands import Operand, kernel_operands
from astcompile.lower.plan import (
    Access,
    KernelPlan,
    phase_parts,
    plan_kernel,
    unit_stride,
)
from astcompile.lower.source_notes import lines_of
from astcompile.lower.stash import plan_stashes
from astcompile.passes.schedule import Kernel, member_map
from astcompile.targets.base import dim_c
from astcompile.targets.c import c_reduce as red
from astcompile.targets.c.c_rules import lower, operand_expr
from astcompile.targets.c.chunks import CALL, CHUNK, ReductionLoops, Work
from astcompile.targets.c.ctypes import ctype
from astcompile.targets.c.entry import arr as _arr
from astcompile.targets.c.entry import entry, struct
from astcompile.targets.c.entry import out as _out
from astcompile.targets.c.views import View

#: Around a kernel that calls math functions (its functions and the parallel regions GCC
#: outlines from them). Where the CPU has AVX-512 (and only there), its loops use 512-bit
#: vectors and libmvec's 16-float/8-double variants (``_ZGVeN16v_tanhf``, as accurate as the
#: AVX2 ones): gelu ran 2.7x faster, black-scholes, softmax and layernorm 1.5-2x, on a Sapphire
#: Rapids. GCC's default there is 256 bits, which other kernels keep: a sum over rows of 20
#: floats ran 2x slower with 512-bit vectors.
WIDE_VECTORS = [
    "#pragma GCC push_options",
    "/* 512-bit vectors where the CPU has them: the math functions' widest variants */",
    '#pragma GCC target("prefer-vector-width=512")',
]


def _v(node: Node) -> str:
    return f"v{nid(node)}"


class _Emitter(ReductionLoops):
    def __init__(self, plan: KernelPlan, aliased: frozenset[int] = frozenset()) -> None:
        self.plan = plan
        self.aliased = aliased
        self.kernel = plan.kernel
        self.members = self.kernel.member_ids()
        self.inner = plan.inner
        self.lines: list[str] = []
        self.depth = 1
        self.access_ids = {key: k for k, key in enumerate(plan.accesses)}
        self.out_maps = {o.id: member_map(o, self.kernel) for o in self.kernel.outputs}
        self.current = -1  # the phase being emitted
        self.calls_math = False  # whether a statement calls a math function (see WIDE_VECTORS)
        self.stashes = {}  # none while they are planned: the plan reads the full phase bodies
        self.stashes = plan_stashes(plan, self._phase_body, self._calls, aliased)

    def size(self, axis: int) -> str:
        return f"n{axis}"

    # -- array offsets ----------------------------------------------------------------------
    def _address(
        self,
        base: str,
        axis_map: tuple,
        offset: str,
        axes: tuple[int, ...],
        read: Node | None = None,
    ) -> str:
        """Where the loop indices of ``axes`` are in ``base``, from ``offset`` (as a loop region's
        views address them: views.py); an array's own last axis on the innermost loop has
        stride 1 (the wrapper makes it so), so GCC sees contiguous vectors, unless it is a
        ``read`` view that never has (``x[::2]``: lower/plan.unit_stride)."""
        strides = tuple(
            "1" if unit_stride(self.plan, axis_map, t, read) else f"{base}_s{t}"
            for t in range(len(axis_map))
        )
        idx = [f"i{a}" if a in axes else "0" for a in axis_map]
        return View(base, offset, strides, frozenset()).address(idx)

    def load(self, access: Access) -> str:
        base, k = _arr(access.buffer), self.access_ids[access.key]
        offset = f"{base}_o{k}"
        return f"{base}[{self._address(base, access.axis_map, offset, self.plan.inner, access.buffer)}]"

    def element(self, node: Node) -> str:
        """The output array element of ``node`` at the current loop indices."""
        base = _out(node)
        return (
            f"{base}[{self._address(base, self.out_maps[node.id], f'{base}_o', self.plan.inner)}]"
        )

    def store(self, node: Node, value: str) -> str:
        return f"{self.element(node)} = {value};"

    # -- expressions ------------------------------------------------------------------------
    def operands(self, node: Node) -> list[Operand]:
        return kernel_operands(self.plan, node, self.members, self.load, _v, "0")

    def value_stmt(self, node: Node) -> str:
        if self._reloaded(node):
            stash = self.stashes[node.id]
            kept = f"{self.element(stash.out)};  /* kept by phase {stash.phase} */"
            return f"const {ctype(node.dtype)} {_v(node)} = {kept}"
        expr = lower(node, self.operands(node))
        self.calls_math = self.calls_math or bool(CALL.search(expr))
        return f"const {ctype(node.dtype)} {_v(node)} = {expr};{location(node)}"

    def reduction_input(self, node: Node) -> str:
        (operand,) = self.operands(node)
        return operand_expr(operand)

    # -- one phase: a loop nest over the inner axes -----------------------------------------
    def _phase_body(self, k: int) -> list[Node]:
        return self._needed(*phase_parts(self.plan, self.out_maps, k))

    def _calls(self, node: Node) -> bool:
        return bool(CALL.search(self.value_stmt(node)))

    def _reloaded(self, node: Node) -> bool:
        """Whether ``node`` is read back from an output in the phase being emitted."""
        stash = self.stashes.get(node.id)
        return stash is not None and self.plan.avail[stash.out.id] == self.current

    def phase(self, k: int) -> None:
        self.current, plan = k, self.plan
        reds, outs = phase_parts(self.plan, self.out_maps, k)
        body = self._needed(reds, outs)
        self.emit(f"/* phase {k}: {self._describe(reds, outs)} */")
        self.accumulate(reds, "t")
        if not plan.inner:
            self._body(body, reds, outs, "t")
        else:
            self._chunked(self._work(body, reds, outs))
        for r in reds:
            count = " * ".join(f"n{a}" for a in plan.inner) or "1"
            self.emit(
                f"const {ctype(r.dtype)} {_v(r)} = {red.finalize(r, f't{nid(r)}', count)};{location(r)}"
            )

    def _describe(self, reds: list[Node], outs: list[Node]) -> str:
        parts = [f"{r.op.name.lower()} {_v(r)}" for r in reds] + [f"write {_out(o)}" for o in outs]
        return ", ".join(parts) or "nothing"

    def _needed(self, reds: list[Node], outs: list[Node]) -> list[Node]:
        """Element-level members the phase computes per element, in program order."""
        need: dict[int, Node] = {}
        stack = [i for r in reds for i in r.inputs] + list(outs)
        members = self.members
        while stack:
            n = stack.pop()
            if n.id in need or n.id not in members or n.id not in self.plan.elem:
                continue
            need[n.id] = n
            if not self._reloaded(n):
                stack.extend(n.inputs)
        return sorted(need.values(), key=lambda n: n.id)

    def _work(self, body: list[Node], reds: list[Node], outs: list[Node]) -> Work:
        dtypes = [n.dtype for n in [*body, *reds, *(i for r in reds for i in r.inputs)]]
        return Work(
            reds,
            lambda acc, lane: self._body(body, reds, outs, acc, lane),
            tuple(dtypes),
            plain=bool(outs) or self._stashing(),
        )

    def _chunked(self, work: Work) -> None:
        accs = [(r, a) for r in work.reds for a in red.accumulators(r)]
        self.emit("/* this thread's share of the row's chunks */")
        self.open("for (int64_t c = c0; c < c1; c++)")
        self.chunk(work, self.plan.inner[0])
        if accs:
            self.open("if (nthr == 1)")
            self.combine(work.reds, "t", "a")
            self.close(" else {")
            self.depth += 1
            for r, a in accs:
                self.emit(f"A->p{nid(r)}{a.suffix}[c] = a{nid(r)}{a.suffix};")
            self.close()
        self.close()
        if accs:
            self.open("if (nthr > 1)")
            self.emit("/* partial results in chunk order: the same sum for any thread count */")
            self.emit("#pragma omp barrier")
            self.open("for (int64_t c = 0; c < nch; c++)")
            for r, a in accs:
                self.emit(f"const {a.ctype} a{nid(r)}{a.suffix} = A->p{nid(r)}{a.suffix}[c];")
            self.combine(work.reds, "t", "a")
            self.close()
            self.emit("#pragma omp barrier  /* all have read the partials: they may be reused */")
            self.close()

    def _stashing(self) -> bool:
        return any(s.phase == self.current for s in self.stashes.values())

    def _body(self, body, reds, outs, acc: str, lane: str = "") -> None:
        for n in body:
            self.emit(self.value_stmt(n))
        self.fold(reds, [self.reduction_input(r) for r in reds], acc, lane)
        for o in outs:
            self.emit(self.store(o, _v(o)))
        for stash in self.stashes.values():
            if stash.phase == self.current:
                self.emit(f"{self.store(stash.out, _v(stash.value))}  /* kept for its phase */")

    # -- the row function -------------------------------------------------------------------
    def row_function(self) -> list[str]:
        """``{name}_rows``: rows ``row0 <= row < row1``, thread ``tid`` of ``nthr`` taking its
        share of each row's chunks. One call per thread, not per row: a call, the unpacking
        of the arguments and the division giving the chunk share cost more than a short
        row's work."""
        name, plan = self.kernel.name, self.plan
        self.lines = []
        self.depth = 0
        self.open(
            f"static void {name}_rows(const {name}_args* A, int64_t row0, int64_t row1, "
            "int tid, int nthr)"
        )
        self._unpack()
        if plan.inner:
            self.emit("const int64_t c0 = nch * tid / nthr, c1 = nch * (tid + 1) / nthr;")
        self.open("for (int64_t row = row0; row < row1; row++)")
        self._unravel()
        emitted: set[int] = set()
        for k in range(plan.nphases):
            self._row_values(k, emitted)
            self.phase(k)
        self._row_values(plan.nphases, emitted)
        for o in self.kernel.outputs:
            if not plan.touches_inner(self.out_maps[o.id]):
                self.emit(f"if (tid == 0) {self.store(o, _v(o))}")
        self.close()
        self.emit("(void)tid; (void)nthr;")
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
        for a, d in enumerate(kernel.domain):  # a size known here lets GCC unroll its loop
            self.emit(f"const int64_t n{a} = {d if isinstance(d, int) else f'A->n{a}'};")
        if self.plan.inner:
            self.emit(f"const int64_t ch = {_chunking(kernel.domain, self.plan.inner)};")
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
        if len(rows) > 1:
            self.emit("int64_t rem = row;")
            for a in reversed(rows[1:]):
                self.emit(f"const int64_t i{a} = rem % n{a}; rem /= n{a};")
        if rows:  # the outermost: no division (64-bit ones cost more than a short row's sum)
            self.emit(f"const int64_t i{rows[0]} = {'rem' if len(rows) > 1 else 'row'};")
        arrays = [
            (_arr(a.buffer), a.axis_map, self.access_ids[k]) for k, a in self.plan.accesses.items()
        ]
        arrays += [(_out(o), self.out_maps[o.id], "") for o in self.kernel.outputs]
        for base, axis_map, key in arrays:
            row = self._address(base, axis_map, "0", self.plan.rows)
            self.emit(f"const int64_t {base}_o{key} = {row};")


def _chunking(domain: tuple, inner: tuple[int, ...]) -> str:
    """``ch, nch``: the entry's values (chunks.chunk_size, chunk_count), as constants where the
    inner axes' sizes are known, so a short row (``np.repeat(x, 4)``) is a fixed loop."""
    if len(inner) > 1 or not isinstance(domain[inner[0]], int):
        return "A->ch, nch = A->nch"
    return f"{CHUNK}, nch = {-(-domain[inner[0]] // CHUNK)}"


def kernel_source(
    kernel: Kernel, aliased: frozenset[int] = frozenset()
) -> tuple[str, str, KernelPlan]:
    """(C definition, cffi declarations, plan) of one kernel; ``aliased``: ids of the arrays
    that share memory (an output written in place over an input)."""
    plan = plan_kernel(kernel)
    head = [
        (
            f"/* kernel {kernel.name}: domain {tuple(dim_c(d) for d in kernel.domain)}, "
            f"reduced axes {kernel.reduce_axes}"
        ),
        f" * from {lines_of(kernel.nodes) or 'unknown lines'} */",
    ]
    emitter, (call, decl) = _Emitter(plan, aliased), entry(kernel, plan)
    lines = [*struct(kernel, plan), *emitter.row_function(), *call]
    if emitter.calls_math:
        lines = [*WIDE_VECTORS, *lines, "#pragma GCC pop_options"]
    return "\n".join([*head, *lines]) + "\n", decl, plan
