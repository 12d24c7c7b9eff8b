"""LOOP, IF, RESULT and CHECK nodes of structured regions as C ``for``/``while``/``if``.

A loop-carried scalar is a C local updated at the end of each iteration. A loop-carried array
is a *placeholder* view (pointer and strides): on the first iteration it is the initial array
itself, so stores through it reach the caller's array as in NumPy; a body that computes a new
array writes it into one of two buffers, the one the placeholder does not point to (double
buffering), and the placeholder moves there::

    for (int64_t k_7 = 0; k_7 < steps_2; k_7 += 1) {
        ...                                   /* body: reads u_8 */
        double* u_8_next = u_8_sel == 0 ? u_8_b : u_8_a;
        for (...) u_8_next[i0] = ...;         /* the new u */
        u_8 = u_8_next; u_8_s0 = 1; u_8_sel = u_8_sel == 0 ? 1 : 0;
    }

``u_8_sel`` says where the final value lives (-1: the initial array), so the wrapper can return
that very array. Arrays that only go round (``a, b = b, a``) are pointers that swap; arrays
handed down a line (``u_prev, u = u, u_next``) are pointers that move down it, the new array
copied into one of ``len(line) + 1`` buffers in turn. A branch result array is copied into a
buffer by whichever branch runs.
"""

from __future__ import annotations

from typing import Any

from astcompile.ir.checks import KEEP
from astcompile.ir.graph import Graph, Node
from astcompile.ir.ops import Op
from astcompile.lower.ids import nid
from astcompile.lower.index_ranges import loop_bounds
from astcompile.lower.loop_schedule import Branch, Stmt, UserLoop
from astcompile.lower.names import location as loc
from astcompile.lower.names import value_name
from astcompile.lower.source_notes import error_site
from astcompile.lower.structured_plan import StructuredUnsupported
from astcompile.targets.c import structured_parallel as parallel
from astcompile.targets.c.ctypes import ctype, real_dtype
from astcompile.targets.c.views import View, contiguous_strides

Emitter = Any  # structured.Emitter (imported lazily there: it imports this module)


def loop(em: Emitter, stmt: UserLoop) -> None:
    """A user loop of the schedule: carried values in, the body, carried values out."""
    node, body = stmt.node, stmt.node.attr.body
    ring = _rotation(em, stmt)
    chains = {} if ring else _chains(em, stmt)
    for k, c in enumerate(stmt.carried):
        if k in ring:
            _rotate_in(em, stmt, k, ring)
        elif k in chains:
            _chain_in(em, stmt, k, chains[k])
        else:
            _carry_in(em, node, k, c.holder, c.init)
    go, pending, outer = f"go{nid(node)}", None, em.scalar_loops
    live = outer == em.loops  # the enclosing user loop's scalar compares still apply
    if stmt.is_while:
        em.emit(f"/* while loop */{loc(node)}")
        em.emit(f"int {go} = {em.scalar(stmt.bounds[0])};")
        em.open(f"while ({go})")
    else:
        pending = _for_header(em, stmt)
        if pending is None:
            return
    em.scalar_loops = em.loops if stmt.is_while or _holds_while(stmt.body) else -1
    em.block(stmt.body)
    em.inside = stmt.around + 1
    if stmt.exits:
        em.emit(f"const int {go}_next = {em.scalar(body.outputs[-1])};")
    updates: list[str] = []
    for k, c in enumerate(stmt.carried):
        if k in ring:
            updates += _rotate_out(em, c.holder, stmt.carried[ring[k]].holder)
        elif k in chains and chains[k].index(k):  # takes the array of the one before it
            before = chains[k][chains[k].index(k) - 1]
            updates += _rotate_out(em, c.holder, stmt.carried[before].holder)
        elif k in chains:
            updates += _chain_out(em, body, c.holder, c.out, len(chains[k]))
        else:
            updates += _carry_out(em, body, c.holder, c.out)
    for line in updates:
        em.emit(line)
    if stmt.is_while:
        em.emit(f"{go} = {go}_next;")
    elif stmt.exits:
        em.emit(f"if (!{go}_next) break;  /* break */")
    if pending is not None:
        parallel.end(em, pending)
    em.inside = stmt.around
    em.scalar_loops = em.loops if live else outer
    em.close()
    if pending is not None:
        parallel.after_close(em, pending)


def _holds_while(stmts: tuple[Stmt, ...]) -> bool:
    """Whether a ``while`` loop runs in these statements: GCC vectorises no loop around one
    (its trip count is unknown), so the loop's float compares run scalar."""
    return any(
        (isinstance(s, UserLoop) and (s.is_while or _holds_while(s.body)))
        or (isinstance(s, Branch) and (_holds_while(s.then) or _holds_while(s.orelse)))
        for s in stmts
    )


def _for_header(em: Emitter, stmt: UserLoop) -> parallel.Pending | None:
    """Open ``for (i = start; ...; i += step)``; None when the step is the constant 0."""
    node = stmt.node
    start, stop, step = stmt.bounds
    ivar = node.attr.body.inputs[0]
    iv = value_name(ivar)
    em.emit(f"/* for {ivar.attr.name} in range(...) */{loc(node)}")
    lo, hi, by = (em.cast(em.scalar(n), n.dtype, ivar.dtype) for n in (start, stop, step))
    if step.op is Op.CONST:
        if step.attr.value == 0:
            em.bail(
                f"{_site(em, node)} return 2;  /* ValueError: range() arg 3 must not be zero */"
            )
            return None
        cond = f"{iv} < {hi}" if step.attr.value > 0 else f"{iv} > {hi}"
        by = str(int(step.attr.value))
        found = loop_bounds(start, stop, int(step.attr.value), em.ranges)
        if found is not None:
            em.ranges[ivar.id] = found
    else:
        em.bail(
            f"if ({by} == 0) {{ {_site(em, node)} return 2; }}  /* ValueError: range() step 0 */"
        )
        cond = f"({by} > 0 ? {iv} < {hi} : {iv} > {hi})"
    bump = f"{iv}++" if by == "1" else f"{iv} += {by}"
    pending = parallel.begin(em, stmt, f"{hi} - {lo}", (lo, hi) if by == "1" else ("", ""))
    em.open(f"for (int64_t {iv} = {lo}; {cond}; {bump})")
    return pending


def _carry_in(em: Emitter, node: Node, k: int, cin: Node, init: Node) -> None:
    name, t = value_name(cin), ctype(cin.dtype)
    if em.plan.is_scalar(cin):
        em.emit(f"{t} {name} = {em.cast(em.scalar(init), init.dtype, cin.dtype)};")
        return
    if cin.shape != init.shape:
        raise StructuredUnsupported(f"a carried array whose shape changes ({node.loc})")
    view = em.view(init)
    bufs = (f"{name}_a", f"{name}_b")
    for buf in bufs:
        em.alloc(buf, cin.shape, cin.dtype)
    alias = view.alias | {("carried", node.id, k)}
    _pointer(em, node, k, view, "starts as the initial array", (-1, alias, (init, *bufs), 1))


def _carry_out(em: Emitter, body: Graph, cin: Node, out: Node) -> list[str]:
    name, t = value_name(cin), ctype(cin.dtype)
    if em.plan.is_scalar(cin):
        em.emit(f"const {t} {name}_next = {em.cast(em.scalar(out), out.dtype, cin.dtype)};")
        return [f"{name} = {name}_next;"]
    if _unchanged(out) is cin:
        return []
    _check_fresh(em, body, out)
    em.emit(f"{t}* {name}_next = {name}_sel == 0 ? {name}_b : {name}_a;  /* double buffer */")
    strides = contiguous_strides(cin.shape)
    em.fill(View(f"{name}_next", "0", strides, frozenset()), cin.shape, cin.dtype, out)
    moves = [f"{name}_s{a} = {s};" for a, s in enumerate(strides)]
    return [f"{name} = {name}_next;", *moves, f"{name}_sel = {name}_sel == 0 ? 1 : 0;"]


def _rotation(em: Emitter, stmt: UserLoop) -> dict[int, int]:
    """Carried arrays the body only passes round among themselves (``prev, cur, nxt = cur,
    nxt, prev`` after stores into ``nxt``): carried ``k`` -> the carried ``j`` whose holder it
    becomes. Empty unless every such hand-over is a permutation of those arrays (no array of
    the ring is also rebound to a new value), with one shape and dtype."""
    ring = _hand_overs(em, stmt)
    kinds = {(stmt.carried[k].holder.shape, stmt.carried[k].holder.dtype) for k in ring}
    if set(ring.values()) != set(ring) or len(kinds) > 1:
        return {}
    return ring


def _hand_overs(em: Emitter, stmt: UserLoop) -> dict[int, int]:
    """Carried array ``k`` -> the other carried ``j`` whose array it becomes at the end of an
    iteration (its placeholder, passed on unchanged)."""
    holders = {c.holder.id: j for j, c in enumerate(stmt.carried)}
    takes = {
        k: holders[_unchanged(c.out).id]
        for k, c in enumerate(stmt.carried)
        if not em.plan.is_scalar(c.holder) and _unchanged(c.out).id in holders
    }
    return {k: j for k, j in takes.items() if k != j}


def _chains(em: Emitter, stmt: UserLoop) -> dict[int, tuple[int, ...]]:
    """Carried arrays handed down a line (``u_prev, u = u, u_next``, ``u_next`` new): member
    -> its chain, the new array's holder first, then each one taking the array of the one
    before it. Empty unless each holder is taken by one member at most, with one shape and
    dtype along a chain."""
    takes = _hand_overs(em, stmt)
    if len(set(takes.values())) != len(takes):
        return {}
    chains: dict[int, tuple[int, ...]] = {}
    for head in set(takes.values()) - set(takes):
        chain = [head]
        while chain[-1] in takes.values():
            chain.append(next(k for k, j in takes.items() if j == chain[-1]))
        kinds = {(stmt.carried[m].holder.shape, stmt.carried[m].holder.dtype) for m in chain}
        if len(kinds) > 1:
            return {}
        chains.update((m, tuple(chain)) for m in chain)
    return chains if len(chains) == len(takes) + len(set(takes.values()) - set(takes)) else {}


def _chain_in(em: Emitter, stmt: UserLoop, k: int, chain: tuple[int, ...]) -> None:
    """A chain member is a pointer that starts at its own initial array; the chain's new
    arrays go into ``len(chain) + 1`` buffers in turn, so the one filled is never one a member
    still holds. ``_sel`` indexes the members' initial arrays, then the buffers."""
    node, head = stmt.node, value_name(stmt.carried[chain[0]].holder)
    bufs = tuple(f"{head}_c{b}" for b in range(len(chain) + 1))
    if k == chain[0]:
        for buf in bufs:
            em.alloc(buf, stmt.carried[k].holder.shape, stmt.carried[k].holder.dtype)
    alias = frozenset().union(*(em.view(stmt.carried[m].init).alias for m in chain))
    alias |= {("carried", node.id, m) for m in chain}
    choices = (*(stmt.carried[m].init for m in chain), *bufs)
    view = em.view(stmt.carried[k].init)
    _pointer(em, node, k, view, "hands its array down", (chain.index(k), alias, choices, 0))


def _chain_out(em: Emitter, body: Graph, cin: Node, out: Node, length: int) -> list[str]:
    """The chain's new array, copied into the buffer after the one its head holds (the first
    buffer while it holds its initial array)."""
    name, t = value_name(cin), ctype(cin.dtype)
    _check_fresh(em, body, out)
    em.emit(
        f"const int {name}_next_sel = {name}_sel >= {2 * length} ? {length} : ({name}_sel < {length} ? {length} : {name}_sel + 1);"
    )
    picks = " : ".join(f"{name}_next_sel == {length + b} ? {name}_c{b}" for b in range(length))
    em.emit(f"{t}* {name}_next = {picks} : {name}_c{length};  /* a buffer no member holds */")
    strides = contiguous_strides(cin.shape)
    em.fill(View(f"{name}_next", "0", strides, frozenset()), cin.shape, cin.dtype, out)
    moves = [f"{name}_s{a} = {s};" for a, s in enumerate(strides)]
    return [f"{name} = {name}_next;", *moves, f"{name}_sel = {name}_next_sel;"]


def _rotate_in(em: Emitter, stmt: UserLoop, k: int, ring: dict[int, int]) -> None:
    """A ring member is a pointer that starts at its own initial array and moves to the
    others' (no buffers: the arrays themselves go round). ``_sel`` says which member's initial
    array it points at; any member may alias any of them, so stores are checked against all."""
    node, members = stmt.node, sorted(ring)
    alias = frozenset().union(*(em.view(stmt.carried[m].init).alias for m in members))
    alias |= {("carried", node.id, m) for m in members}
    inits = tuple(stmt.carried[m].init for m in members)
    view = em.view(stmt.carried[k].init)
    _pointer(em, node, k, view, "goes round with the others", (members.index(k), alias, inits, 0))


def _pointer(em: Emitter, node: Node, k: int, view: View, what: str, sel: tuple) -> None:
    """Carried array ``k`` of loop ``node`` as a pointer with strides of its own, starting at
    ``view``; ``sel``: its ``_sel`` at the start, what it may alias, and the arrays the wrapper
    returns for the loop's result, by ``_sel`` plus a bias (``Emitter.selectors``)."""
    cin = node.attr.holders[k]
    name, start, alias, choices, bias = value_name(cin), *sel
    em.emit(f"{ctype(cin.dtype)}* {name} = {view.base_pointer()};  /* {what} */")
    for a, s in enumerate(view.strides):
        em.emit(f"int64_t {name}_s{a} = {s};")
    em.emit(f"int {name}_sel = {start};")
    strides = tuple(f"{name}_s{a}" for a in range(cin.ndim))
    em.views[cin.id] = placeholder = View(name, "0", strides, alias)
    result = em.plan.results.get(node.id, {}).get(k)
    if result is not None:
        em.views[result.id] = placeholder
        if em.plan.owner[node.id] is em.plan.graph:
            em.selectors[result.id] = (f"{name}_sel", choices, bias)


def _rotate_out(em: Emitter, cin: Node, becomes: Node) -> list[str]:
    """Take over the pointer, strides and origin of the member ``becomes`` (read before any
    member moves: the moves come after every carried value's next one is known)."""
    name, other, t = value_name(cin), value_name(becomes), ctype(cin.dtype)
    em.emit(f"{t}* {name}_next = {other};  /* {name} becomes {other} */")
    for a in range(cin.ndim):
        em.emit(f"const int64_t {name}_next_s{a} = {other}_s{a};")
    em.emit(f"const int {name}_next_sel = {other}_sel;")
    moves = [f"{name}_s{a} = {name}_next_s{a};" for a in range(cin.ndim)]
    return [f"{name} = {name}_next;", *moves, f"{name}_sel = {name}_next_sel;"]


def _unchanged(out: Node) -> Node:
    """What ``out`` is when inner loops only updated it in place: ``out += ...`` in an inner
    loop carries ``out`` through it unchanged (the RESULT is the inner loop's initial value,
    the same buffer), so the outer loop carries its own placeholder on, with nothing to copy."""
    while out.op is Op.RESULT and out.inputs[0].op is Op.LOOP:
        loop, k = out.inputs[0], out.attr
        attr = loop.attr
        if attr.body.outputs[k] is not attr.holders[k]:
            break
        out = loop.inputs[attr.heads + k]
    return out


def _check_fresh(em: Emitter, graph: Graph, out: Node, where: Node | None = None) -> None:
    """A carried or branch array must be new in that graph: copying it must not lose aliasing.
    The fault is the loop's or the branch's (``where``): that statement can go to Python."""
    fresh = out.id in em.plan.buffers or not em.plan.rooted(out)
    if em.plan.owner.get(out.id) is not graph or not fresh:
        raise StructuredUnsupported(
            f"{out!r} leaves a loop body or branch as a view of another array ({out.loc})",
            (where or out).loc,
        )


def branch(em: Emitter, stmt: Branch) -> None:
    node, results = stmt.node, dict(stmt.results)
    for r in results.values():
        if em.plan.is_scalar(r):
            em.emit(f"{ctype(r.dtype)} {value_name(r)};")
        else:
            em.alloc(value_name(r), r.shape, r.dtype, r)
    em.emit(f"/* if */{loc(node)}")
    em.open(f"if ({em.scalar(node.inputs[0])})")
    _arm(em, stmt, stmt.then, node.attr.then_graph, results)
    em.close(" else {")
    em.depth += 1
    _arm(em, stmt, stmt.orelse, node.attr.else_graph, results)
    em.close()


def _arm(
    em: Emitter, stmt: Branch, stmts: tuple[Stmt, ...], graph: Graph, results: dict[int, Node]
) -> None:
    em.block(stmts)
    em.inside = stmt.around
    for k, r in sorted(results.items()):
        out = graph.outputs[k]
        if em.plan.is_scalar(r):
            em.emit(f"{value_name(r)} = {em.cast(em.scalar(out), out.dtype, r.dtype)};")
        else:
            _check_fresh(em, graph, out, stmt.node)
            em.fill(em.view(r), r.shape, r.dtype, out)


def result(em: Emitter, node: Node) -> None:
    src = node.inputs[0]
    if src.op is Op.LOOP and em.plan.is_scalar(node):
        cin = src.attr.holders[node.attr]
        em.emit(f"const {ctype(node.dtype)} {value_name(node)} = {value_name(cin)};")


def _keep(value: Node, text: str) -> str:
    """The statement that keeps ``text``, a scalar nothing reads, computed: a float in a float
    register, a complex as its two parts, an integer in a general register."""
    kind = value.dtype.kind
    if kind == "c":
        keep = f"astc_keep_{ctype(real_dtype(value.dtype))}"
        return f"{keep}(__real__ ({text})); {keep}(__imag__ ({text}));"
    if kind == "f":
        return f"astc_keep_{ctype(value.dtype)}({text});"
    return f"astc_keep_int((int64_t){text});"


def check(em: Emitter, node: Node) -> None:
    """``assert`` (and Python's errors on loop values): status 3, ``err[0]`` names the check,
    ``err[1]``, ``err[2]`` hold the ints its message names (their bits, with their dtypes).
    A KEEP check computes its scalar and drops it (its flags raised, trace/unread_values.py)."""
    if node.attr.exception == KEEP:
        em.emit(f"{_keep(node.inputs[0], em.scalar(node.inputs[0]))}{loc(node)}")
        return
    values = node.inputs[1:3]
    em.checks.append((node.attr.exception, node.attr.message, tuple(v.dtype.str for v in values)))
    what = f"{node.attr.exception}: {node.attr.message}".replace("*/", "* /")
    named = "".join(f"err[{k}] = (int64_t){em.scalar(v)}; " for k, v in enumerate(values, 1))
    em.bail(
        f"if (!{em.scalar(node.inputs[0])}) {{ err[0] = {len(em.checks) - 1}; {named}"
        f"{_site(em, node)} return 3; }}"
        f"  /* {what} */{loc(node)}"
    )


def _site(em: Emitter, node: Node) -> str:
    """Where a failing statement says it failed: the user's line (source_notes.error_site)."""
    return f"err[3] = {error_site(em.sites, node)};"
