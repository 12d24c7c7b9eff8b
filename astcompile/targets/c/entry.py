"""The C around a kernel's row function: its argument struct and its exported entry function.

The entry picks one of three ways to run the rows, so that a parallel team is opened at most
once per call (opening one per row or per phase cost more than the work of a 1024-float row):

* many rows: one ``omp parallel`` region, each thread a contiguous share of the rows, each row
  computed by one thread (``tid 0 of 1``);
* few long rows: one ``omp parallel`` region in which every thread walks all rows and takes its
  share of each row's chunks (``tid t of n``); reductions meet at barriers through per-chunk
  partial buffers the entry allocates;
* little work, one thread, a forked child (``nthreads == 1``) or no idle CPU for a second
  thread (``astc_threads``): a plain loop, no team at all.

Beside the entry, ``<kernel>_packed(const astc_word* w)`` calls it with its parameters read from
one array of 8-byte words: the C-level call path (``runtime/fastcall.c``) calls every kernel
through that one signature.
"""

from __future__ import annotations

from astcompile.ir.graph import Node
from astcompile.lower.ids import nid
from astcompile.lower.names import value_name
from astcompile.lower.plan import KernelPlan
from astcompile.passes.schedule import Kernel
from astcompile.targets.c import c_reduce as red
from astcompile.targets.c.chunks import chunk_count, chunk_size
from astcompile.targets.c.ctext import team
from astcompile.targets.c.ctypes import ctype, scalar_params, scalar_value

#: Below this many elements a kernel runs on one thread (an OpenMP team costs microseconds).
PARALLEL_WORK = 1 << 16
#: The entry's teams' clauses: whether a team pays is decided before (``big``).
_ALL = " num_threads(nteam)"


def arr(node: Node) -> str:
    return value_name(node)


def out(node: Node) -> str:
    return f"out_{nid(node)}"


def partials(plan: KernelPlan) -> list[tuple[str, str]]:
    """(C type, field name) of the per-chunk partial buffer of every reduction accumulator."""
    return [
        (acc.ctype, f"p{nid(r)}{acc.suffix}")
        for r in plan.kernel.nodes
        if r.id in plan.phase_of and plan.inner
        for acc in red.accumulators(r)
    ]


def struct(kernel: Kernel, plan: KernelPlan) -> list[str]:
    fields = ["int64_t nthreads;"] + [f"int64_t n{a};" for a in range(len(kernel.domain))]
    if plan.inner:
        fields.append("int64_t ch, nch; /* chunk length along the first inner axis, chunks */")
    for buf in plan.loads:
        fields.append(f"const {ctype(buf.dtype)}* {arr(buf)};")
        fields += [f"int64_t {arr(buf)}_s{t};" for t in range(len(buf.shape))]
    fields += [f"{ctype(s.dtype)} s_{value_name(s)};" for s in plan.scalars]
    for o in kernel.outputs:
        fields.append(f"{ctype(o.dtype)}* {out(o)};")
        fields += [f"int64_t {out(o)}_s{t};" for t in range(len(o.shape))]
    fields += [f"{t}* {name};" for t, name in partials(plan)]
    return ["typedef struct {", *("    " + f for f in fields), f"}} {kernel.name}_args;"]


def parameters(kernel: Kernel, plan: KernelPlan) -> list[tuple[str, str]]:
    """The entry function's (C type, name) parameters, in call order."""
    params = [("int64_t", "nthreads")] + [("int64_t", f"n{a}") for a in range(len(kernel.domain))]
    for buf in plan.loads:
        params.append(("const void*", arr(buf)))
        params += [("int64_t", f"{arr(buf)}_bs{t}") for t in range(len(buf.shape))]
    for s in plan.scalars:
        params += scalar_params(f"s_{value_name(s)}", s.dtype)
    for o in kernel.outputs:
        params.append(("void*", out(o)))
        params += [("int64_t", f"{out(o)}_bs{t}") for t in range(len(o.shape))]
    return params


def _fill(kernel: Kernel, plan: KernelPlan) -> list[str]:
    """Statements filling the argument struct ``A`` from the parameters."""
    lines = ["A.nthreads = nthreads;"] + [f"A.n{a} = n{a};" for a in range(len(kernel.domain))]
    for node, base in [(b, arr(b)) for b in plan.loads] + [(o, out(o)) for o in kernel.outputs]:
        t = ctype(node.dtype)
        const = "const " if node in plan.loads else ""
        lines.append(f"A.{base} = ({const}{t}*){base};")
        lines += [
            f"A.{base}_s{k} = {base}_bs{k} / (int64_t)sizeof({t});" for k in range(len(node.shape))
        ]
    lines += [
        f"A.s_{value_name(s)} = {scalar_value(f's_{value_name(s)}', s.dtype)};"
        for s in plan.scalars
    ]
    if plan.inner:
        first, rest = plan.inner[0], " * ".join(f"n{a}" for a in plan.inner[1:]) or "1"
        lines += chunk_size(rest, "A.ch")
        lines.append(f"A.nch = {chunk_count(f'n{first}', 'A.ch')};")
    lines += [f"A.{name} = NULL;" for _, name in partials(plan)]
    return lines


def _many_rows(name: str) -> list[str]:
    """The many-rows branch: one team, each thread a contiguous share of the rows."""
    who = "const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();"
    share = f"{name}_rows(&A, nrows * t / n, nrows * (t + 1) / n, 0, 1);"
    return [
        "if (big && nrows >= 2 * nteam) {",
        "    /* many rows: each thread a contiguous share of them, each row computed whole */",
        *("    " + line for line in team(_ALL, "fp_team", [share], (who,))),
    ]


def _shared_rows(name: str, plan: KernelPlan, first: bool) -> list[str]:
    """The few-long-rows branch: one team shares each row's chunks (``first``: no branch
    before it)."""
    bufs = partials(plan)
    alloc = [f"A.{n} = ({t}*)malloc((A.nch ? A.nch : 1) * sizeof({t}));" for t, n in bufs]
    ok = " && ".join(f"A.{n}" for _, n in bufs) or "1"
    call = f"{name}_rows(&A, 0, nrows, omp_get_thread_num(), omp_get_num_threads());"
    return [
        "if (big) {" if first else "} else if (big) {",
        "    /* few long rows: every thread walks the rows and takes its share of the chunks */",
        *("    " + line for line in alloc),
        f"    if ({ok}) {{",
        *("        " + line for line in team(_ALL, "fp_team", [call])),
        "    } else {  /* out of memory for the partial results: one thread */",
        f"        {name}_rows(&A, 0, nrows, 0, 1);",
        "    }",
        *(f"    free(A.{n});" for _, n in bufs),
    ]


def entry(kernel: Kernel, plan: KernelPlan) -> tuple[list[str], str]:
    """The kernel's exported entry and its cffi declarations."""
    name = kernel.name
    params = parameters(kernel, plan)
    rows = " * ".join(f"n{a}" for a in plan.rows) or "1"
    inner = " * ".join(f"n{a}" for a in plan.inner) or "1"
    body = [f"{name}_args A;", *_fill(kernel, plan)]
    # Without row axes nrows is 1, and a team of two or more never has two rows each: that
    # branch would be dead code, which GCC still lowers (a tenth of a small kernel's build).
    teams = _many_rows(name) if plan.rows else []
    if plan.inner:
        teams += _shared_rows(name, plan, first=not teams)
    one = f"{name}_rows(&A, 0, nrows, 0, 1);"
    if teams:
        body += [
            f"const int64_t nrows = {rows}, work = nrows * ({inner});",
            f"const int64_t nteam = work >= {PARALLEL_WORK} ? astc_threads(nthreads) : 1;",
            "const int big = nteam > 1;",
            "int fp_team = 0;",
            *teams,
            "} else {",
            f"    {one}",
            "}",
            "astc_fp_join(fp_team);  /* the team's floating-point flags, for the caller */",
        ]
    else:  # one row, no chunks: no team to open
        body += [f"const int64_t nrows = {rows};", one, "(void)nthreads;"]
    return exported("void", name, params, ["    " + line for line in body])


#: The member of ``astc_word`` a parameter of each C type is read from (others: ``.i``, cast).
_WORD_MEMBER = {"double": "d", "float": "f", "const void*": "p", "void*": "p"}
#: The top of every C source: includes, and the words packed twins read (``exported``).
HEADER = (
    '#include <stdint.h>\n#include <stdlib.h>\n#include <omp.h>\n#include "astc_math.h"\n\n'
    "typedef union { int64_t i; double d; float f; const void* p; } astc_word;"
)


def exported(
    returns: str, name: str, params: list[tuple[str, str]], body: list[str]
) -> tuple[list[str], str]:
    """A function the wrapper calls (``body``: its statements, indented) and its cffi
    declaration, with ``<name>_packed``: the same called with its parameters packed in words,
    in order (``returns``: a kernel's ``void``, a loop region's ``int`` status, passed on)."""
    args = []
    for k, (t, _) in enumerate(params):
        member = _WORD_MEMBER.get(t, "i")
        cast = t != "int64_t" and t != "const void*" and member in ("i", "p")
        word = f"(w + {k})->{member}"  # not w[k]: no constant in brackets (sizes never are)
        args.append(f"({t}){word}" if cast else word)
    call = f"{'' if returns == 'void' else 'return '}{name}({', '.join(args)});"
    lines = [f"{returns} {name}({', '.join(f'{t} {n}' for t, n in params)})", "{", *body, "}"]
    lines += [f"{returns} {name}_packed(const astc_word* w)", "{", f"    {call}", "}"]
    decl = f"{returns} {name}({', '.join(t for t, _ in params)});"
    return lines, f"{decl}\n{returns} {name}_packed(const void*);"
