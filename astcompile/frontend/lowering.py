"""Lower planned loops and branches of a region body (see frontend/loop_plan.py) on its ``ast``.

Done right before the body is compiled, so the rewrite cache needs no libcst to load it, and
every new node takes the line of the statement it replaces: tracebacks keep the user's lines.

    for i, v in enumerate(x):          (__ac_seq_7,) = __ac_iter(x)
        if v < 0:                      def __ac_loop_7(__ac_k_7, s, __ac_brk_7):
            break                          __ac_go_7 = True
        s = s + v                          i, v = (__ac_k_7, __ac_seq_7[__ac_k_7])
                                           ... if v < 0: __ac_brk_7 = True; __ac_go_7 = False
                                           ... if __ac_go_7: s = s + v      (both __ac_if)
                                           return (s, __ac_brk_7)
                                       __ac_brk_7 = False
                                       (s, __ac_brk_7) = __ac_for(__ac_loop_7,
                                           (__ac_len(__ac_seq_7),), (s, __ac_brk_7), 1)
"""

from __future__ import annotations

import ast
import copy
import re

from astcompile.frontend import lowering_parts as P
from astcompile.frontend.comprehensions import lower_comprehensions
from astcompile.frontend.folds import FOLDS
from astcompile.frontend.spec import RET, UNBOUND_NAME, BranchSpec, GuardSpec, LoopSpec, Spec

IF, WHILE, IS_NONE = "__ac_if", "__ac_while", "__ac_is_none"

CREATE = "__ac_create"
#: ``np.zeros(shape)`` and friends take no array argument, and ``np.array([a, b])`` gets a
#: list, so NumPy cannot hand them to the tracer: region bodies call them through
#: ``__ac_create`` (see trace/numpy_api.py, trace/literals.py, trace/numpy_construct.py).
CREATION_NAMES = frozenset(
    {"zeros", "ones", "empty", "full", "array", "asarray", "arange", "linspace", "eye", "identity"}
)


#: Words of a body that the lowering may route through the tracer's helpers (a superset:
#: a match only costs building the body as written too).
_ROUTED = re.compile(
    r"\b(assert|if|is|"
    + "|".join(sorted(P.SCALAR_BUILTINS | P.MATH_FUNCTIONS | CREATION_NAMES | FOLDS.keys()))
    + r")\b|=\s*\(\s*[-+(\d.]"  # a literal table (P.literal_tables)
)


def routed_calls(source: str) -> bool:
    """Whether lowering ``source`` may call the tracer's helpers (``__ac_scalar``,
    ``__ac_create``, ``__ac_if``, ``__ac_assert``, a ``sum`` folded into a loop) where the
    user's text calls NumPy or Python directly: then a plain run uses the body as written, so
    that NumPy's warnings and a traceback name the user's line, not a frame of ours, and a
    ``sum`` is Python's own."""
    return _ROUTED.search(source) is not None


def lower_structured(module: ast.Module, specs: tuple[Spec, ...]) -> ast.Module:
    """Rewrite the planned ``for``/``while``/``if`` statements of ``module`` into structured
    calls, array-creation calls into ``__ac_create`` calls, and scalar functions, ``assert``
    and boolean tests into their traceable forms (trace/scalars.py, trace/control.py)."""
    by_line = {(type(s), s.line): s for s in specs}
    for fdef in module.body:
        if isinstance(fdef, ast.FunctionDef):
            lower_comprehensions(fdef)
            fdef.body = _returns_after_loops(_lift_returns(fdef.body, by_line, False), by_line)
    _Lowering(by_line, P.literal_tables(module)).visit(module)
    ast.fix_missing_locations(module)
    return module


def seed_unbound(module: ast.Module, specs: tuple[Spec, ...]) -> ast.Module:
    """The region body as written, but for the names a planned loop may leave unbound (it ran
    zero times): they start as UNBOUND before it, so the region can return them and the
    function unbinds them again (rewrite.py), as the lowered body does (``start_values``)."""
    by_line = {s.line: s for s in specs if isinstance(s, LoopSpec) and s.unbound}
    for node in ast.walk(module):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(isinstance(n, LOOPS) for n in block):
                setattr(node, field, [m for stmt in block for m in _seeded(stmt, by_line)])
    ast.fix_missing_locations(module)
    return module


def _seeded(stmt: ast.stmt, by_line: dict) -> list[ast.stmt]:
    spec = by_line.get(stmt.lineno) if isinstance(stmt, LOOPS) else None
    if spec is None:
        return [stmt]
    return [*(P.store(name, P.load(UNBOUND_NAME), stmt) for name in spec.unbound), stmt]


def _returns_after_loops(body: list[ast.stmt], by_line: dict) -> list[ast.stmt]:
    """A region's loop holding ``return e`` (frontend/loop_plan.py) breaks out with its
    ``returned`` flag set; the region then returns ``e``, evaluated after the loop (nothing
    ran since the return, so every name holds the value it had there), else runs the rest::

        for it in range(n):               for it in range(n): ... (the return: flags, break)
            ...                           if __ac_returned_7:            (an IF, both
            if done:                          __ac_ret_0, __ac_ret_1 = x, it    sides give
                return x, it              else:                              the values)
        __ac_ret = (x, -1)                    __ac_ret_0, __ac_ret_1 = (x, -1)
        return (__ac_ret,)                __ac_ret = (__ac_ret_0, __ac_ret_1)
    """
    for index, stmt in enumerate(body):
        spec = by_line.get((LoopSpec, stmt.lineno)) if isinstance(stmt, LOOPS) else None
        if spec is None or not spec.ret:
            continue
        returns = _numbered_returns(stmt)
        values = [copy.deepcopy(r.value.elts[0]) for r in returns]  # each returns ``(e,)``
        after = body[index + 1 :]  # only ``return (__ac_ret,)`` after ``while True:``
        finals = [after[-2].value] if len(after) > 1 else []
        flat = _same_arity([*values, *finals])
        names = tuple(f"{RET}_{k}" for k in range(len(values[0].elts))) if flat else (RET,)
        target = P.names(names) if flat else ast.Name(RET, ast.Load())
        starts = [P.store(name, P.load(UNBOUND_NAME), stmt) for name in names]
        chosen = _which_return(spec, returns, values, target, names)
        if finals:
            *rest, last, _ = after
            other = [*rest, P.located(_assign(target, last.value), last)]
            chosen = [P.located(ast.If(P.load(spec.ret), chosen, other), stmt)]
            chosen[0].ac_spec = BranchSpec(stmt.lineno, names + _updated(rest))
        joined = [P.store(RET, P.names(names), after[-1])] if flat else []
        return [*body[: index + 1], *starts, *chosen, *joined, after[-1]]
    return body


def _lift_returns(block: list[ast.stmt], by_line: dict, in_loop: bool) -> list[ast.stmt]:
    """A planned loop nested in another that holds a ``return`` (frontend/loop_plan.py) is
    followed by ``if returned: return e``, a return of the loop around it, innermost first::

        for i in range(n):                for i in range(n):
            for j in range(m):                for j in range(m):
                if x[i, j] > t:                   if x[i, j] > t:
                    return i, j                       return i, j   (flags, break)
                                              if __ac_returned_8:
                                                  return i, j       (flags, break)
    """
    out: list[ast.stmt] = []
    for stmt in block:
        inside = in_loop or isinstance(stmt, LOOPS)
        for field in ("body", "orelse"):
            if isinstance(stmt, (*LOOPS, ast.If)):
                setattr(stmt, field, _lift_returns(getattr(stmt, field), by_line, inside))
        out.append(stmt)
        spec = by_line.get((LoopSpec, stmt.lineno)) if isinstance(stmt, LOOPS) else None
        if in_loop and spec is not None and spec.ret:
            (ret,) = [n for n in P.own_nodes(stmt.body) if isinstance(n, ast.Return)]
            lifted = ast.If(P.load(spec.ret), [ast.Return(copy.deepcopy(ret.value))], [])
            out.append(P.located(lifted, stmt))
    return out


def _numbered_returns(loop: ast.For | ast.While) -> list[ast.Return]:
    """The loop's own returns in source order. With more than one, each sets the loop's
    ``returned`` flag to its number (``ac_which``, lowering_parts.jump), which starts at 0."""
    returns = sorted(
        (n for n in P.own_nodes(loop.body) if isinstance(n, ast.Return)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    if len(returns) > 1:
        loop.ac_ret_start = 0
        for number, node in enumerate(returns, 1):
            node.ac_which = number
    return returns


def _which_return(
    spec: LoopSpec, returns: list, values: list, target: ast.expr, names: tuple[str, ...]
) -> list[ast.stmt]:
    """``target = e`` of the return that ran: ``if returned == 1: ... else: if ...`` (IFs
    passing on ``names``), the last one taken when no other ran."""
    chosen = [P.located(_assign(target, values[-1]), returns[-1])]
    for number in range(len(returns) - 1, 0, -1):
        node = returns[number - 1]
        test = ast.Compare(P.load(spec.ret), [ast.Eq()], [ast.Constant(number)])
        then = [P.located(_assign(target, values[number - 1]), node)]
        chosen = [P.located(ast.If(test, then, chosen), node)]
        chosen[0].ac_spec = BranchSpec(node.lineno, names)
    return chosen


LOOPS = (ast.For, ast.While)


def _updated(statements: list[ast.stmt]) -> tuple[str, ...]:
    """Names ``statements`` read and then assign (``s = s - 1``): a branch function made of
    them takes and returns them (assigned, they are its locals). They are bound: the region
    reads them there (frontend/region_cuts.py keeps maybe-unbound reads in Python)."""
    read_first, written = set(), set()
    for stmt in statements:
        names = [n for n in ast.walk(stmt) if isinstance(n, ast.Name)]
        loads = {n.id for n in names if isinstance(n.ctx, ast.Load)}
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            loads.add(stmt.target.id)
        read_first |= loads - written
        written |= {n.id for n in names if isinstance(n.ctx, ast.Store)}
    return tuple(sorted(read_first & written))


def _same_arity(values: list[ast.expr]) -> bool:
    """Tuple displays of one length: their items travel as separate values."""
    if not all(isinstance(v, ast.Tuple) for v in values):
        return False
    items = [e for v in values for e in v.elts]
    lengths = {len(v.elts) for v in values}
    return len(lengths) == 1 and not any(isinstance(e, ast.Starred) for e in items)


def _assign(target: ast.expr, value: ast.expr) -> ast.Assign:
    stored = copy.deepcopy(target)
    for node in ast.walk(stored):
        if isinstance(node, (ast.Name, ast.Tuple)):
            node.ctx = ast.Store()
    return ast.Assign([stored], value)


class _Lowering(ast.NodeTransformer):
    def __init__(self, by_line: dict, tables: frozenset[str] = frozenset()) -> None:
        self.by_line = by_line
        self.tables = tables

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        self.generic_visit(node)
        return P.item_call(node, self.tables)

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in CREATION_NAMES:
            wrapped = ast.Call(ast.Name(CREATE, ast.Load()), [func, *node.args], node.keywords)
            return ast.copy_location(wrapped, node)
        return P.scalar_call(node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        """``a if c else b`` -> ``__ac_if(c, lambda: (a,), lambda: (b,), ())[0]``: an IF node
        when ``c`` is known only at run time; only the chosen side runs, as in Python."""
        self.generic_visit(node)
        if any(isinstance(n, P.SCOPE_SENSITIVE) for n in ast.walk(node)):
            return node
        sides = [P.lambda_of(ast.Tuple([side], ast.Load())) for side in (node.body, node.orelse)]
        chosen = P.call(IF, [P.test(node.test), *sides, ast.Tuple([], ast.Load())])
        return ast.copy_location(ast.Subscript(chosen, ast.Constant(0), ast.Load()), node)

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        """``v is None`` -> ``__ac_is_none(v)``, ``v is not None`` -> ``__ac_not(...)`` of it:
        a variable a loop or an if may leave None reads its flag (trace/optionals.py)."""
        self.generic_visit(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return node
        none = [
            isinstance(v, ast.Constant) and v.value is None for v in (node.left, *node.comparators)
        ]
        if none[0] == none[1]:
            return node
        test = P.call(IS_NONE, [node.comparators[0] if none[0] else node.left])
        if isinstance(node.ops[0], ast.IsNot):
            test = P.call(P.NOT, [test])
        return ast.copy_location(test, node)

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        self.generic_visit(node)
        return P.assert_call(node)

    def _visit_loop(self, node: ast.For | ast.While) -> LoopSpec | None:
        """The loop's plan (its jumps lowered first), after lowering what is inside it; None
        for a loop that stays in Python."""
        spec = getattr(node, "ac_spec", None) or self.by_line.get((LoopSpec, node.lineno))
        if spec is not None:
            if spec.raised:  # its exception is made after the loop (P.raise_after)
                own = P.own_nodes(node.body)
                node.ac_raise = next(n for n in own if isinstance(n, ast.Raise))
            node.body = self._jumps(node.body, spec)
        self.generic_visit(node)
        return spec

    def _after(self, node: ast.For | ast.While, spec: LoopSpec) -> list[ast.stmt]:
        return P.raise_after(spec, node.ac_raise) if spec.raised else []

    def visit_For(self, node: ast.For) -> list[ast.stmt] | ast.For:
        spec = self._visit_loop(node)
        if spec is None:
            return node
        return [*P.lower_for(node, spec), *self._after(node, spec), *self._orelse(node, spec)]

    def _orelse(self, node: ast.For, spec: LoopSpec) -> list[ast.stmt]:
        """A ``for``'s ``else`` block (lowered with the loop) after it: as it is where no
        ``break`` can skip it, else under ``if not brk:``, a branch on the traced flag."""
        if spec.orelse is None:
            return node.orelse
        test = ast.UnaryOp(ast.Not(), P.load(spec.brk))
        branch = ast.copy_location(ast.If(test, node.orelse, []), node.orelse[0])
        return self._lower_if(branch, spec.orelse)

    def visit_While(self, node: ast.While) -> list[ast.stmt] | ast.While:
        spec = self._visit_loop(node)
        if spec is None:
            return node
        name = f"__ac_loop_{node.lineno}"
        head = P.flag_start(spec, node)
        body = P.function(name, spec.carried, [*head, *node.body], spec.carried, node)
        test_name = f"__ac_test_{node.lineno}"
        test = P.function(test_name, spec.carried, [], (), node, value=P.test(node.test))
        args = [ast.Name(test_name, ast.Load()), ast.Name(name, ast.Load()), P.names(spec.carried)]
        call = P.call(WHILE, args + P.brk_index(spec))
        starts = P.start_values(spec, node)
        loop = [*starts, *P.brk_init(spec, node), test, body, P.assign(spec.carried, call, node)]
        return [*loop, *self._after(node, spec)]

    def visit_If(self, node: ast.If) -> list[ast.stmt] | ast.If:
        self.generic_visit(node)
        spec = getattr(node, "ac_spec", None) or self.by_line.get((BranchSpec, node.lineno))
        return node if spec is None else self._lower_if(node, spec)

    def _lower_if(self, node: ast.If, spec: BranchSpec | GuardSpec) -> list[ast.stmt]:
        """An ``if`` (its blocks lowered already) as a call of ``__ac_if``."""
        then_name, else_name = P.branch_names(node)
        then_fn = P.function(then_name, spec.names, node.body, spec.names, node)
        else_fn = P.function(else_name, spec.names, node.orelse or [ast.Pass()], spec.names, node)
        call = P.call(
            IF,
            [
                P.test(node.test),
                ast.Name(then_name, ast.Load()),
                ast.Name(else_name, ast.Load()),
                P.names(spec.names),
            ],
        )
        unbound = spec.unbound if isinstance(spec, BranchSpec) else ()
        starts = [P.store(name, P.load(UNBOUND_NAME), node) for name in unbound]
        return [*starts, then_fn, else_fn, P.assign(spec.names, call, node)]

    def _jumps(self, body: list[ast.stmt], spec: LoopSpec) -> list[ast.stmt]:
        """``break``/``continue`` of this loop as flag assignments; what follows an ``if``
        holding one runs under ``if go:`` (see GuardSpec)."""
        out: list[ast.stmt] = []
        for index, stmt in enumerate(body):
            if isinstance(stmt, P.JUMPS):
                return out + P.jump(stmt, spec)
            if not (isinstance(stmt, ast.If) and P.has_jump(stmt)):
                out.append(stmt)
                continue
            stmt.body = self._jumps(stmt.body, spec)
            stmt.orelse = self._jumps(stmt.orelse, spec)
            out.append(stmt)
            rest = body[index + 1 :]
            if rest:
                guard = self.by_line[(GuardSpec, stmt.lineno)]
                out.append(P.guard(guard, self._jumps(rest, spec), rest[0]))
            return out
        return out
