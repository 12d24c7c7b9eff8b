"""OpenMP pragmas of structured C: which loops run on several threads, which on SIMD lanes.

Two kinds of loop are parallel:

* an **element loop nest** (a store's fill, a buffer being computed): its elements are
  independent by construction (a store that reads what it writes elsewhere goes through a
  temporary first), so the outermost axis is ``omp parallel for``;
* a **user ``for`` loop** whose iterations :func:`~astcompile.lower.independence.independent`
  proves disjoint, once its emitted body is known to return no error and to need no scratch
  buffer: ``omp parallel for``, and ``omp simd`` too when it holds no loop of its own.

A team is opened only outside every user loop (never a team inside a team, and never one per
iteration of a serial loop: even a false ``if`` clause calls into the OpenMP runtime, which
cost more than a small body, and waking sleeping threads each time step cost more than it
saved), and only when the work is large enough to pay for waking the threads: the ``if``
clause compares the share of an estimate (trip count times the body's element operations) the
other threads take with :data:`PARALLEL_WORK` at run time (:func:`team_size`). With one thread (``nthreads`` is 1 in a forked child) the
``if`` is false and the loop runs on the calling thread.

A loop on SIMD lanes that stores ``a[i]`` runs its first iterations one by one, up to where
``a`` starts a 64-byte line (:func:`line_head`), and a team's threads take whole lines: a
vector store across two lines cost up to 1.6x on a Zen 4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astcompile.ir.attrs import DynIndex, IndexKind
from astcompile.ir.graph import ConstAttr, Graph, LoopAttr, Node
from astcompile.ir.ops import Kind, Op
from astcompile.ir.shapes import Dim, dim_sub, hint, is_runtime, upper_bound
from astcompile.lower.ids import nid
from astcompile.lower.index_ranges import indexed_shape
from astcompile.lower.structured_plan import VIEW_OPS
from astcompile.targets.base import dim_c
from astcompile.targets.c import ctext
from astcompile.targets.c.ctypes import ctype

Emitter = Any  # structured.Emitter (it imports this module)

if TYPE_CHECKING:
    from astcompile.lower.loop_schedule import UserLoop

#: What a team costs, in element operations, checked at run time (:func:`team_size`). Not only
#: waking the threads (4.5-7 us): on an idle 2-CPU Zen 4 guest a team of 2 lost while the
#: data sat in the caller's caches (piecewise, clip, clip into an out: 1.29-1.46x slower at
#: 262k floats, 1.0-1.24x at 393k) and won from 524k on (0.81-0.97x; 0.57-0.68x at 1M), so the
#: cost is what 6 operations on ~260k elements do, not what waking takes.
PARALLEL_WORK = 3 << 19
#: Below this at the sizes traced a loop gets no team construct at all (:func:`worth_a_team`).
TEAM_CONSTRUCT_WORK = 1 << 18
#: Assumed trip count of an inner loop whose bounds are computed inside the outer one.
_UNKNOWN_TRIP = 16


def team(threads: str) -> str:
    """The clauses of a team of ``threads`` (a C variable: :func:`team_size`), opened only
    when it is more than 1 (:func:`team_around`)."""
    return f" num_threads({threads})"


def team_size(work: str) -> str:
    """The C expression for the threads of a team doing ``work`` (a C expression): 1 unless
    the share it takes off the calling thread, ``work * (n - 1) / n``, exceeds what opening
    the team costs (astc_team, astc_math.h, which counts only idle CPUs of the default thread
    count). Two threads save half the work: below twice the cost they lost (a clip of 65k
    floats on 2 threads: 14.7 us against 9.9 us on one)."""
    return f"astc_team(nthreads, {work}, {PARALLEL_WORK}LL)"


def team_around(
    em: Emitter, mark: int, depth: int, work: str, simd: bool, fp: str, lines_of: str = ""
) -> None:
    """The ``for`` loop emitted from line ``mark`` on, its iterations shared out by a team
    (:func:`~astcompile.targets.c.ctext.team`: the floating-point flags reach ``fp``) when
    one pays, else run as it is: a team whose ``if`` clause is false still costs libgomp
    1.2 us a call (a piecewise over 262k floats ran in 45 us). ``lines_of``: ``"trip, size"``
    of a loop whose stores start on a 64-byte line (:func:`line_head`), whose threads then
    each take whole lines."""
    indent = "    " * depth
    threads = fp.replace("fp", "team", 1)
    lines = [f"int {fp} = 0;  /* the team's floating-point flags, for the caller */"]
    schedule = "static"
    if lines_of:
        chunk = fp.replace("fp", "chunk", 1)
        trip, size = lines_of.split(", ")
        lines.append(f"const int64_t {chunk} = astc_line_chunk({trip}, {threads}, {size});")
        schedule = f"static, {chunk}"
    share = f"#pragma omp for{' simd' if simd else ''} schedule({schedule}) nowait"
    loop = [line[len(indent) :] for line in em.lines[mark:]]
    lines += [*ctext.team(team(threads), fp, [share, *loop]), f"astc_fp_join({fp});"]
    alone = ["#pragma omp simd", *loop] if simd else loop
    em.lines[mark:] = [
        f"{indent}const int64_t {threads} = {team_size(work)};  /* threads worth waking */",
        f"{indent}if ({threads} > 1) {{",
        *(f"{indent}    {line}" for line in lines),
        f"{indent}}} else {{",
        *(f"{indent}    {line}" for line in alone),
        f"{indent}}}",
    ]


@dataclass
class Pending:
    """A ``for`` loop being emitted whose pragma is decided once its body is known."""

    node: Node
    mark: int  # where its pragma goes in ``em.lines``
    depth: int
    exits: int
    allocs: int
    loops: int
    proved: bool  # iterations independent (the graph-level proof)
    team: bool  # outside every other user loop: may open a team
    trip: str  # the trip count (an upper bound), in C
    bounds: tuple[str, str] = ("", "")  # its start and stop, in C, when it steps by 1
    opened: int = -1  # where the team :func:`after_close` opens for it starts, if any
    simd: bool = False  # its iterations on SIMD lanes too
    lines_of: str = ""  # "trip, size" when its vector loop stores from a line's start


def begin(em: Emitter, loop: UserLoop, trip: str, bounds: tuple[str, str] = ("", "")) -> Pending:
    """Called just before the ``for`` line: tentatively parallel if the schedule proved its
    iterations independent; a team only outside every other user loop. ``bounds``: the start
    and stop of a loop stepping by 1."""
    return Pending(
        loop.node,
        len(em.lines),
        em.depth,
        em.exits,
        len(em.allocs),
        em.loops,
        loop.independent,
        loop.around == 0,
        trip,
        bounds,
    )


def end(em: Emitter, p: Pending) -> None:
    """Insert the loop's pragma now that its body is emitted."""
    if not p.proved or em.exits != p.exits or len(em.allocs) != p.allocs:
        return  # an error return or a shared scratch buffer: serial
    simd = em.loops == p.loops + 1  # no loop inside the body
    if simd:
        em.lines[p.mark :] = [
            line.replace("astc_select_", "astc_pick_") for line in em.lines[p.mark :]
        ]
        line_head(em, p)
    indent = "    " * p.depth
    work = _times(_trip(p.node), body_work(p.node.attr.body, em))
    if not p.team or not worth_a_team(work):
        if simd:
            em.lines.insert(p.mark, f"{indent}#pragma omp simd")
        return
    flag = f"work{nid(p.node)}"
    per_iteration = poly_c(body_work(p.node.attr.body, em))
    em.lines[p.mark : p.mark] = [
        f"{indent}/* iterations are independent (docs/numpy-support.md, parallel loops) */",
        f"{indent}const int64_t {flag} = ({p.trip}) * ({per_iteration});  /* element ops */",
    ]
    p.opened, p.simd = p.mark + 2, simd


def after_close(em: Emitter, p: Pending) -> None:
    """After the loop's closing brace: the team :func:`end` decided on, if any, around it."""
    if p.opened >= 0:
        fp = f"fp{nid(p.node)}"
        team_around(em, p.opened, p.depth, f"work{nid(p.node)}", p.simd, fp, p.lines_of)


def line_head(em: Emitter, p: Pending) -> None:
    """Run the first iterations of a vector loop one by one, up to the first whose store
    starts a 64-byte line (``astc_line_head``): its vector stores then fill whole lines. The
    store is the body's first into a 1-D array at the loop's index, stepping by 1; any other
    start would be as right (the iterations are independent), only slower."""
    target = _line_store(em, p)
    if target is None:
        return
    view, size = em.view(target), f"sizeof({ctype(target.dtype)})"
    (first, stop), indent, head = p.bounds, "    " * p.depth, f"from{nid(p.node)}"
    loop, body = em.lines[p.mark], em.lines[p.mark + 1 :]
    skip = f"astc_line_head({view.ptr}, {first}, {size}, {p.trip})"
    start = loop.replace(f" = {first};", f" = {head};", 1)
    em.lines[p.mark :] = [
        f"{indent}/* up to where {view.ptr}[] starts a 64-byte line, one by one (astc_math.h) */",
        f"{indent}const int64_t {head} = {first} + {skip};",
        loop.replace(f"< {stop};", f"< {head};", 1),
        *(line for line in body if not line.lstrip().startswith("/*")),
        f"{indent}}}",
        start,
        *body,
    ]
    p.mark = len(em.lines) - len(body) - 1  # the vector loop's ``for``
    p.lines_of = f"{stop} - {head}, {size}"


def _line_store(em: Emitter, p: Pending) -> Node | None:
    """The target of the loop body's first store into ``a[i]`` (``a`` 1-D with unit stride,
    made before the loop, ``i`` the loop's index), if the loop steps by 1."""
    body = p.node.attr.body
    if not p.bounds[0]:
        return None
    inside = {id(n) for n in em.plan.levels[id(body)]}
    for node in em.plan.levels[id(body)]:
        if node.op is not Op.STORE or id(node.inputs[0]) in inside:
            continue
        (item,) = node.attr.index if len(node.attr.index) == 1 else (None,)
        at = getattr(item, "start", None)
        if item is None or item.kind is not IndexKind.INT or not isinstance(at, DynIndex):
            continue
        view = em.view(node.inputs[0])
        if (
            node.inputs[at.input] is body.inputs[0]
            and view.offset == "0"
            and view.strides == ("1",)
        ):
            return node.inputs[0]
    return None


Poly = dict[tuple[Dim, ...], int]  # product of size factors -> integer coefficient


def body_work(graph: Graph, em: Emitter) -> Poly:
    """Element operations of one run of ``graph``, a polynomial in the region's sizes."""
    total: Poly = {}
    for node in em.plan.levels[id(graph)]:
        if isinstance(node.attr, LoopAttr):
            part = _times(_trip(node), body_work(node.attr.body, em))
        elif node.op is Op.IF:
            part = _plus(body_work(node.attr.then_graph, em), body_work(node.attr.else_graph, em))
        elif node.kind is Kind.REDUCTION:
            part = _numel(node.inputs[0].shape)
        elif node.op is Op.STORE:
            part = _numel(indexed_shape(node.inputs[0].shape, node.attr.index))
        elif node.op in VIEW_OPS or node.op in (Op.INPUT, Op.CONST, Op.DIM):
            continue
        else:
            part = _numel(node.shape)
        total = _plus(total, part)
    return total


def _plus(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for term, coef in b.items():
        out[term] = out.get(term, 0) + coef
    return out


def _times(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ta, ca in a.items():
        for tb, cb in b.items():
            out = _plus(out, {tuple(sorted(ta + tb, key=str)): ca * cb})
    return out


def _numel(shape: tuple[Dim, ...]) -> Poly:
    term, coef = [], 1
    for d in shape:
        try:
            d = upper_bound(d)
        except ValueError:
            d = _UNKNOWN_TRIP
        if isinstance(d, int):
            coef *= d
        else:
            term.append(d)
    return {tuple(sorted(term, key=str)): coef}


def _trip(loop: Node) -> Poly:
    if loop.attr.is_while:
        return {(): _UNKNOWN_TRIP}
    start, stop = (_size(n) for n in loop.inputs[:2])
    if start is None or stop is None:
        return {(): _UNKNOWN_TRIP}
    return _numel((stop,)) if start == 0 else _numel((dim_sub(stop, start),))


def _size(node: Node) -> Dim | None:
    if node.op is Op.CONST and isinstance(node.attr, ConstAttr) and node.dtype.kind in "iu":
        return int(node.attr.value)
    if node.op is Op.DIM and not is_runtime(node.attr):
        return node.attr  # a size of the region's arguments (a RUN size is a body local)
    return None


def worth_a_team(poly: Poly) -> bool:
    """Whether the work, at the sizes seen when tracing, reaches :data:`TEAM_CONSTRUCT_WORK`: a
    team construct writes the loop twice (:func:`team_around`), so loops that were small when
    traced get none (a later call with larger sizes runs on one thread)."""
    traced = sum(c * math.prod(hint(d) for d in t) for t, c in poly.items())
    return traced * 4 >= TEAM_CONSTRUCT_WORK


def poly_c(poly: Poly) -> str:
    """C for a work polynomial: ``3 * n0_0 * n0_1 + 2``."""
    terms = [
        " * ".join(([str(c)] if c != 1 or not t else []) + [dim_c(d) for d in t])
        for t, c in sorted(poly.items(), key=lambda tc: -len(tc[0]))
        if c
    ]
    return " + ".join(terms) or "0"


def nest_pragmas(em: Emitter, shape: tuple[Dim, ...], marks: list[tuple[int, int]]) -> None:
    """Pragmas of an element nest just emitted (``marks``: line and depth of each ``for``):
    ``omp simd`` inside, and a team on the outermost axis of a nest outside every user loop
    when its work pays."""
    if not marks:
        return
    ops = max(1, len(em.lines) - marks[-1][0] - 1 - len(shape))  # statements per element
    for axis in reversed(range(len(shape))):
        mark, depth = marks[axis]
        inner = axis == len(shape) - 1
        work = _times({(): ops}, _numel(shape))
        if axis == 0 and em.inside == 0 and worth_a_team(work):
            fp = f"fp_nest{len(em.lines)}"  # a name of its own: no two nests end on one line
            team_around(em, mark, depth, poly_c(work), inner, fp)
        elif inner:
            em.lines.insert(mark, "    " * depth + "#pragma omp simd")
