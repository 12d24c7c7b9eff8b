"""C code generation: one readable C function per kernel.

Every kernel has the same shape. The domain's *row* axes (kept axes, or all but the last for an
elementwise kernel) are flattened into ``row``; ``{name}_row`` computes one row in phases, each
phase one loop nest over the *inner* axes. The innermost loop exists twice, for unit strides (so
GCC vectorises it) and for any strides. ``{name}`` runs the rows in parallel when there are
enough of them, else runs each phase's loop in parallel over chunks (partial results combined in
chunk order). ``nthreads == 1`` (small work, or a forked child) opens no OpenMP team at all.
Sizes and strides are arguments: a new size never recompiles.
"""

from __future__ import annotations

from astcompile.codegen import reduce as red
from astcompile.codegen.ctypes import ctype, scalar_params, scalar_value
from astcompile.codegen.lower import Operand, lower
from astcompile.codegen.names import location, value_name
from astcompile.codegen.plan import Access, KernelPlan, is_scalar_const, plan_kernel
from astcompile.graph.ir import Node
from astcompile.graph.ops import Kind, Op
from astcompile.passes.schedule import Kernel, member_map

#: Below this many elements a kernel runs on one thread (an OpenMP team costs microseconds).
PARALLEL_WORK = 1 << 16
#: Elements per chunk of a phase loop: the unit of parallel work and of blocked summation.
CHUNK = 1 << 13

HEADER = '#include <stdint.h>\n#include <stdlib.h>\n#include "astc_math.h"\n'


def _arr(node: Node) -> str:
    return value_name(node)


def _out(node: Node) -> str:
    return f"out_{node.id}"


def _v(node: Node) -> str:
    return f"v{node.id}"


class _Emitter:
    def __init__(self, plan: KernelPlan) -> None:
        self.plan = plan
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
    def _offset(self, base: str, axis_map: tuple, unit_axis: int | None, key: str) -> str:
        terms = [f"{base}_o{key}"]
        for t, a in enumerate(axis_map):
            if a in self.plan.inner:
                terms.append(f"i{a}" if a == unit_axis else f"i{a} * {base}_s{t}")
        return " + ".join(terms)

    def load(self, access: Access, unit_axis: int | None) -> str:
        k = self.access_ids[access.key]
        base = _arr(access.buffer)
        return f"{base}[{self._offset(base, access.axis_map, unit_axis, str(k))}]"

    def store(self, node: Node, value: str, unit_axis: int | None) -> str:
        base = _out(node)
        return f"{base}[{self._offset(base, self.out_maps[node.id], unit_axis, '')}] = {value};"

    # -- expressions ------------------------------------------------------------------------
    def operands(self, node: Node, unit_axis: int | None) -> list[Operand]:
        ops = []
        for k, src in enumerate(node.inputs):
            if is_scalar_const(src):
                ops.append(Operand("", src.dtype, src.attr.weak, src.attr.value))
            elif (node.id, k) in self.plan.operand_access:
                ops.append(
                    Operand(self.load(self.plan.operand_access[(node.id, k)], unit_axis), src.dtype)
                )
            elif src.id in self.kernel.member_ids():
                ops.append(Operand(_v(src), src.dtype))
            else:  # scalar input parameter
                ops.append(Operand(f"s_{value_name(src)}", src.dtype, src.attr.weak))
        return ops

    def value_stmt(self, node: Node, unit_axis: int | None) -> str:
        expr = lower(node, self.operands(node, unit_axis))
        return f"const {ctype(node.dtype)} {_v(node)} = {expr};{location(node)}"

    def reduction_input(self, node: Node, unit_axis: int | None) -> str:
        (operand,) = self.operands(node, unit_axis)
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
            self._body(body, reds, outs, None, "t")
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
        first, rest = self.plan.inner[0], self.plan.inner[1:]
        rest_size = " * ".join(f"n{a}" for a in rest) or "1"
        self.open("/* chunks of the first inner axis: parallel work units and summation blocks */")
        # max(rest, 1): an empty inner axis must not divide by zero (SIGFPE kills the process)
        self.emit(f"const int64_t rest = {rest_size} > 0 ? {rest_size} : 1;")
        self.emit(f"const int64_t ch = {CHUNK} / rest > 0 ? {CHUNK} / rest : 1;")
        self.emit(f"const int64_t nch = (n{first} + ch - 1) / ch;")
        accs = [(r, a) for r in reds for a in red.accumulators(r)]
        for r, a in accs:
            self.emit(
                f"{a.ctype}* p{r.id}{a.suffix} = ({a.ctype}*)malloc((nch ? nch : 1) * sizeof({a.ctype}));"
            )
        self.emit("#pragma omp parallel for if(par) num_threads(A->nthreads) schedule(static)")
        self.open("for (int64_t c = 0; c < nch; c++)")
        self._chunk(body, reds, outs, first)
        for r, a in accs:
            self.emit(f"p{r.id}{a.suffix}[c] = a{r.id}{a.suffix};")
        self.close()
        if accs:
            self.emit("/* partial results in chunk order: the same sum for any thread count */")
            self.open("for (int64_t c = 0; c < nch; c++)")
            for r, a in accs:
                self.emit(f"const {a.ctype} a{r.id}{a.suffix} = p{r.id}{a.suffix}[c];")
            self._combine(reds)
            self.close()
        for r, a in accs:
            self.emit(f"free(p{r.id}{a.suffix});")
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
        unit = self._unit_condition(body, reds, outs, last)
        if unit:
            self.open(f"if ({unit})")
            self._simd_loop(body, reds, outs, last, bounds, last)
            self.close(" else {")
            self.depth += 1
        self._simd_loop(body, reds, outs, last, bounds, None)
        if unit:
            self.close()
        for _ in inner[:-1]:
            self.close()

    def _unit_condition(
        self, body: list[Node], reds: list[Node], outs: list[Node], last: int
    ) -> str:
        conds: list[str] = []
        for n in [*body, *reds]:
            for k, _src in enumerate(n.inputs):
                access = self.plan.operand_access.get((n.id, k))
                if access is not None:
                    conds += [
                        f"{_arr(access.buffer)}_s{t} == 1"
                        for t, a in enumerate(access.axis_map)
                        if a == last
                    ]
        for o in outs:
            conds += [
                f"{_out(o)}_s{t} == 1" for t, a in enumerate(self.out_maps[o.id]) if a == last
            ]
        return " && ".join(dict.fromkeys(conds))

    def _simd_loop(self, body, reds, outs, axis: int, bounds: tuple, unit_axis: int | None) -> None:
        clauses = "".join(
            f" reduction({acc.omp}:a{r.id}{acc.suffix})"
            for r in reds
            for acc in red.accumulators(r)
        )
        self.emit(f"#pragma omp simd{clauses}")
        self.open(f"for (int64_t i{axis} = {bounds[0]}; i{axis} < {bounds[1]}; i{axis}++)")
        self._body(body, reds, outs, unit_axis, "a")
        self.close()

    def _body(self, body, reds, outs, unit_axis: int | None, acc_prefix: str) -> None:
        for n in body:
            self.emit(self.value_stmt(n, unit_axis))
        for r in reds:
            self.emit(f"const {red.acc_type(r)} in{r.id} = {self.reduction_input(r, unit_axis)};")
            for line in red.update(r, f"{acc_prefix}{r.id}", f"in{r.id}"):
                self.emit(line)
        for o in outs:
            self.emit(self.store(o, _v(o), unit_axis))

    # -- the row function -------------------------------------------------------------------
    def row_function(self) -> list[str]:
        name, plan = self.kernel.name, self.plan
        self.lines = []
        self.depth = 0
        self.open(f"static void {name}_row(const {name}_args* A, int64_t row, int par)")
        self._unpack()
        self._unravel()
        emitted: set[int] = set()
        for k in range(plan.nphases):
            self._row_values(k, emitted)
            self.phase(k)
        self._row_values(plan.nphases, emitted)
        for o in self.kernel.outputs:
            if not plan.touches_inner(self.out_maps[o.id]):
                self.emit(self.store(o, _v(o), None))
        self.emit("(void)par;")
        self.close()
        return self.lines

    def _row_values(self, k: int, emitted: set[int]) -> None:
        for n in self.kernel.nodes:
            if n.id in emitted or n.id in self.plan.elem or n.kind is Kind.REDUCTION:
                continue
            if self.plan.avail[n.id] <= k:
                emitted.add(n.id)
                self.emit(self.value_stmt(n, None))

    def _unpack(self) -> None:
        kernel = self.kernel
        for a in range(len(kernel.domain)):
            self.emit(f"const int64_t n{a} = A->n{a};")
        for buf in self.plan.loads:
            nm = _arr(buf)
            self.emit(f"const {ctype(buf.dtype)}* restrict {nm} = A->{nm};")
            for t in range(len(buf.shape)):
                self.emit(f"const int64_t {nm}_s{t} = A->{nm}_s{t};")
        for s in self.plan.scalars:
            self.emit(f"const {ctype(s.dtype)} s_{value_name(s)} = A->s_{value_name(s)};")
        for o in kernel.outputs:
            self.emit(f"{ctype(o.dtype)}* restrict {_out(o)} = A->{_out(o)};")
            for t in range(len(o.shape)):
                self.emit(f"const int64_t {_out(o)}_s{t} = A->{_out(o)}_s{t};")

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


def _struct(kernel: Kernel, plan: KernelPlan) -> list[str]:
    fields = ["int64_t nthreads;"] + [f"int64_t n{a};" for a in range(len(kernel.domain))]
    for buf in plan.loads:
        fields.append(f"const {ctype(buf.dtype)}* {_arr(buf)};")
        fields += [f"int64_t {_arr(buf)}_s{t};" for t in range(len(buf.shape))]
    fields += [f"{ctype(s.dtype)} s_{value_name(s)};" for s in plan.scalars]
    for o in kernel.outputs:
        fields.append(f"{ctype(o.dtype)}* {_out(o)};")
        fields += [f"int64_t {_out(o)}_s{t};" for t in range(len(o.shape))]
    return ["typedef struct {", *("    " + f for f in fields), f"}} {kernel.name}_args;"]


def parameters(kernel: Kernel, plan: KernelPlan) -> list[tuple[str, str]]:
    """The entry function's (C type, name) parameters, in call order."""
    params = [("int64_t", "nthreads")] + [("int64_t", f"n{a}") for a in range(len(kernel.domain))]
    for buf in plan.loads:
        params.append(("const void*", _arr(buf)))
        params += [("int64_t", f"{_arr(buf)}_bs{t}") for t in range(len(buf.shape))]
    for s in plan.scalars:
        params += scalar_params(f"s_{value_name(s)}", s.dtype)
    for o in kernel.outputs:
        params.append(("void*", _out(o)))
        params += [("int64_t", f"{_out(o)}_bs{t}") for t in range(len(o.shape))]
    return params


def _entry(kernel: Kernel, plan: KernelPlan) -> list[str]:
    name = kernel.name
    params = parameters(kernel, plan)
    lines = [f"void {name}({', '.join(f'{t} {n}' for t, n in params)})", "{"]
    lines.append(f"    {name}_args A;")
    lines.append("    A.nthreads = nthreads;")
    lines += [f"    A.n{a} = n{a};" for a in range(len(kernel.domain))]
    for node, base in [(b, _arr(b)) for b in plan.loads] + [(o, _out(o)) for o in kernel.outputs]:
        t = ctype(node.dtype)
        const = "const " if node in plan.loads else ""
        lines.append(f"    A.{base} = ({const}{t}*){base};")
        lines += [
            f"    A.{base}_s{k} = {base}_bs{k} / (int64_t)sizeof({t});"
            for k in range(len(node.shape))
        ]
    lines += [
        f"    A.s_{value_name(s)} = {scalar_value(f's_{value_name(s)}', s.dtype)};"
        for s in plan.scalars
    ]
    rows = " * ".join(f"n{a}" for a in plan.rows) or "1"
    inner = " * ".join(f"n{a}" for a in plan.inner) or "1"
    lines += [
        f"    const int64_t nrows = {rows}, work = nrows * ({inner});",
        f"    const int big = nthreads > 1 && work >= {PARALLEL_WORK};",
        "    /* enough rows: one row per task; else each row's loops run in parallel chunks */",
        "    if (big && nrows >= 2 * nthreads) {",
        "        #pragma omp parallel for num_threads(nthreads) schedule(static)",
        f"        for (int64_t row = 0; row < nrows; row++) {name}_row(&A, row, 0);",
        "    } else {",
        f"        for (int64_t row = 0; row < nrows; row++) {name}_row(&A, row, big);",
        "    }",
        "}",
    ]
    return lines


def kernel_source(kernel: Kernel) -> tuple[str, str, KernelPlan]:
    """(C definition, cffi declaration, plan) of one kernel."""
    plan = plan_kernel(kernel)
    srcs = sorted({str(n.loc) for n in kernel.nodes if n.loc})
    head = [
        (
            f"/* kernel {kernel.name}: domain {tuple(str(d) for d in kernel.domain)}, "
            f"reduced axes {kernel.reduce_axes}"
        ),
        f" * from {', '.join(srcs) or 'unknown lines'} */",
    ]
    body = _Emitter(plan).row_function()
    params = parameters(kernel, plan)
    decl = f"void {kernel.name}({', '.join(t for t, _ in params)});"
    return (
        "\n".join([*head, *_struct(kernel, plan), *body, *_entry(kernel, plan)]) + "\n",
        decl,
        plan,
    )
