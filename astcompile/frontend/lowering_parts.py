"""The pieces frontend/lowering.py builds statements from: loop heads over every supported
iterable, break/continue flags, boolean tests, ``assert`` and scalar-function calls.

Each ``for`` becomes a counted loop whose body first binds the user's target, so the tracer
only ever sees ``range``-style loops::

    for i, v in enumerate(x, 1):   ->  body(__ac_k_7, ...): i, v = (__ac_k_7 + 1, x[__ac_k_7])
    for a, b in zip(x, y):         ->  body(__ac_k_7, ...): a, b = (x[__ac_k_7], y[__ac_k_7])
    for i, j in np.ndindex(n, m):  ->  body(__ac_idx_7, ...): i, j = __ac_idx_7   (nested loops)

Iterables are evaluated once, before the loop, in the order Python evaluates them, and pass
through ``__ac_iter`` (trace/iteration.py): a dict, set, view or generator is never indexed.
"""

from __future__ import annotations

import ast

from astcompile.frontend.spec import UNBOUND_NAME, UNSEEN_NAME, LoopSpec

FOR, NDINDEX, LEN, RAISE_IF = "__ac_for", "__ac_ndindex", "__ac_len", "__ac_raise_if"
ITER = "__ac_iter"  # the iterables as Python iterates them (trace/iteration.py)
#: statements that end a loop body's iteration early (see lowering._Lowering._jumps)
JUMPS = (ast.Break, ast.Continue, ast.Return, ast.Raise)
AND, OR, NOT, ASSERT, SCALAR = "__ac_and", "__ac_or", "__ac_not", "__ac_assert", "__ac_scalar"
ITEM = "__ac_item"  # ``table[i]`` of a literal tuple of numbers (trace/scalars.ac_item)

#: Calls routed through ``__ac_scalar`` (trace/scalars.py decides by the function object, so a
#: user's own ``floor`` is simply called).
SCALAR_BUILTINS = frozenset({"abs", "min", "max", "int", "float", "round", "complex", "divmod"})
MATH_FUNCTIONS = frozenset(
    ("sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "pow", "erf", "erfc")
    + ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "hypot")
    + ("floor", "ceil", "trunc", "fabs", "copysign", "isnan", "isinf", "isfinite")
    + ("phase", "polar")  # cmath
)


# -- small builders ------------------------------------------------------------------------------


def names(items: tuple[str, ...] | list[str]) -> ast.Tuple:
    return ast.Tuple([ast.Name(n, ast.Load()) for n in items], ast.Load())


def call(func: str, args: list[ast.expr]) -> ast.Call:
    return ast.Call(ast.Name(func, ast.Load()), args, [])


def load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def store(name: str, value: ast.expr, where: ast.AST) -> ast.stmt:
    return located(ast.Assign([ast.Name(name, ast.Store())], value), where)


def assign(items: tuple[str, ...], value: ast.expr, where: ast.stmt) -> ast.stmt:
    if not items:
        return located(ast.Expr(value), where)
    target = ast.Tuple([ast.Name(n, ast.Store()) for n in items], ast.Store())
    return located(ast.Assign([target], value), where)


#: Expressions that mean something else inside a lambda (a walrus binds in the lambda's scope).
SCOPE_SENSITIVE = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)


def lambda_of(expr: ast.expr) -> ast.Lambda:
    return ast.Lambda(arguments_of(()), expr)


def arguments_of(params: list[str] | tuple[str, ...]) -> ast.arguments:
    """Positional parameters ``params`` and nothing else."""
    return ast.arguments(
        posonlyargs=[],
        args=[ast.arg(p) for p in params],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )


def function(
    name: str,
    params: list[str] | tuple[str, ...],
    body: list[ast.stmt],
    returns: tuple[str, ...],
    where: ast.stmt,
    value: ast.expr | None = None,
) -> ast.FunctionDef:
    """``def name(*params): body; return returns`` (or ``return value``)."""
    args = arguments_of(params)
    ret = ast.Return(names(returns) if value is None else value)
    fdef = ast.FunctionDef(
        name=name, args=args, body=[*body, ret], decorator_list=[], returns=None, type_comment=None
    )
    last = body[-1] if body and hasattr(body[-1], "lineno") else where
    ast.copy_location(ret, last)
    ret.lineno = ret.end_lineno = getattr(last, "end_lineno", None) or last.lineno
    return located(fdef, where)


def located(node: ast.AST, where: ast.AST) -> ast.AST:
    """Every new node takes the replaced statement's first line."""
    for child in ast.walk(node):
        if "lineno" in child._attributes and getattr(child, "end_lineno", None) is None:
            child.lineno, child.col_offset = where.lineno, where.col_offset
            child.end_lineno, child.end_col_offset = where.lineno, where.col_offset
    return node


# -- break / continue ------------------------------------------------------------------------------


def own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of a loop body (or statements in it) outside nested loops and functions:
    where a jump of that loop can be."""
    found, stack = [], list(body)
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def has_jump(stmt: ast.stmt) -> bool:
    """A ``break``/``continue``/``return``/``raise`` of the enclosing loop inside ``stmt``."""
    return any(isinstance(node, JUMPS) for node in own_nodes([stmt]))


def jump(stmt: ast.stmt, spec: LoopSpec) -> list[ast.stmt]:
    """``break`` sets the break flag and ends the iteration; ``continue`` only ends it; a
    ``return`` breaks and sets the ``returned`` flag (its value is taken after the loop)."""
    flags = {
        ast.Break: [spec.brk],
        ast.Return: [spec.ret, spec.brk],
        ast.Raise: [spec.raised, spec.brk],
    }.get(type(stmt), [])
    values = [ast.Constant(True)] * len(flags) + [ast.Constant(False)]
    if isinstance(stmt, ast.Return):  # its number, where the loop has several (lowering.py)
        values[0] = ast.Constant(getattr(stmt, "ac_which", True))
    return [store(name, value, stmt) for name, value in zip([*flags, spec.go], values)]


def guard(spec: object, body: list[ast.stmt], where: ast.stmt) -> ast.If:
    node = located(ast.If(load(spec.go), body, []), where)
    node.ac_spec = spec  # lowered like a planned if (see lowering._Lowering.visit_If)
    return node


def branch_names(node: ast.If) -> tuple[str, str]:
    kind = "guard" if hasattr(node, "ac_spec") else "then"
    return f"__ac_{kind}_{node.lineno}", f"__ac_else_{node.lineno}"


def flag_start(spec: LoopSpec, where: ast.stmt) -> list[ast.stmt]:
    return [store(spec.go, ast.Constant(True), where)] if spec.go else []


def brk_init(spec: LoopSpec, where: ast.stmt) -> list[ast.stmt]:
    starts = {spec.ret: getattr(where, "ac_ret_start", False)}  # a number with several returns
    flags = [f for f in (spec.brk, spec.ret, spec.raised) if f]
    return [store(flag, ast.Constant(starts.get(flag, False)), where) for flag in flags]


def raise_after(spec: LoopSpec, raised: ast.Raise) -> list[ast.stmt]:
    """``__ac_raise_if(flag, lambda: E(...))`` after a loop whose body raised: the exception
    is made then, from the values the names had at the ``raise`` (nothing ran since)."""
    make = lambda_of(raised.exc)
    return [located(ast.Expr(call(RAISE_IF, [load(spec.raised), make])), raised)]


def brk_index(spec: LoopSpec) -> list[ast.expr]:
    return [ast.Constant(spec.carried.index(spec.brk))] if spec.brk else []


# -- tests, assert, scalar functions ---------------------------------------------------------------


def test(expr: ast.expr) -> ast.expr:
    """``a and b`` -> ``__ac_and(a, lambda: b)``, ``not a`` -> ``__ac_not(a)``, ``a < b < c``
    -> ``__ac_and(a < b, lambda: b < c)``: short-circuits survive tracing (trace/control.py)."""
    if isinstance(expr, ast.BoolOp):
        helper = AND if isinstance(expr.op, ast.And) else OR
        result = test(expr.values[-1])
        for value in reversed(expr.values[:-1]):
            result = call(helper, [test(value), lambda_of(result)])
        return ast.copy_location(result, expr)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return ast.copy_location(call(NOT, [test(expr.operand)]), expr)
    if isinstance(expr, ast.Compare) and len(expr.ops) > 1:
        first = ast.Compare(expr.left, expr.ops[:1], expr.comparators[:1])
        rest = ast.Compare(expr.comparators[0], expr.ops[1:], expr.comparators[1:])
        return ast.copy_location(call(AND, [first, lambda_of(test(rest))]), expr)
    return expr


def assert_call(node: ast.Assert) -> ast.stmt:
    """``__ac_assert(test, "text")`` for literal text, else ``__ac_assert(test, lambda: msg)``:
    Python evaluates a message only when the assertion fails."""
    msg = node.msg
    literal = isinstance(msg, ast.Constant) and isinstance(msg.value, str)
    message = [] if msg is None else [msg if literal else lambda_of(msg)]
    return located(ast.Expr(call(ASSERT, [test(node.test), *message])), node)


def scalar_call(node: ast.Call) -> ast.Call:
    """``math.sqrt(x)``, ``abs(x)``, ``int(x)``... -> ``__ac_scalar(math.sqrt, x)``."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    wanted = SCALAR_BUILTINS if isinstance(func, ast.Name) else MATH_FUNCTIONS
    if name not in wanted or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return node
    return ast.copy_location(ast.Call(load(SCALAR), [func, *node.args], []), node)


def literal_tables(module: ast.Module) -> frozenset[str]:
    """Names the body binds to a tuple literal of numbers or of such tuples: a direction
    table (``moves = ((-1, 0), (0, 1), ...)``) that a loop indexes with a loop value."""

    def numbers(node: ast.expr) -> bool:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            node = node.operand
        return isinstance(node, ast.Constant) and type(node.value) in (int, float)

    def table(node: ast.expr) -> bool:
        return (
            isinstance(node, ast.Tuple)
            and bool(node.elts)
            and all(
                numbers(e) or (isinstance(e, ast.Tuple) and all(map(numbers, e.elts)))
                for e in node.elts
            )
        )

    return frozenset(
        t.id
        for node in ast.walk(module)
        if isinstance(node, ast.Assign) and table(node.value)
        for t in node.targets
        if isinstance(t, ast.Name)
    )


def item_call(node: ast.Subscript, tables: frozenset[str]) -> ast.expr:
    """``moves[d]`` -> ``__ac_item(moves, d)`` where ``moves`` is a literal table."""
    value = node.value
    if not (isinstance(value, ast.Name) and value.id in tables) or isinstance(
        node.slice, ast.Slice
    ):
        return node
    if not isinstance(node.ctx, ast.Load):
        return node
    return ast.copy_location(ast.Call(load(ITEM), [value, node.slice], []), node)


# -- for loops over every supported iterable -------------------------------------------------------


def lower_for(node: ast.For, spec: LoopSpec) -> list[ast.stmt]:
    """The statements replacing a planned ``for`` (its body already lowered)."""
    line = node.lineno
    name = f"__ac_loop_{line}"
    pre, param, bind, head = _head(node, line)
    keep_target = [store(spec.last, load(spec.target), node)] if spec.last else []
    body_stmts = [*bind, *keep_target, *flag_start(spec, node), *node.body]
    body = function(name, [param, *spec.carried], body_stmts, spec.carried, node)
    helper, bounds = head
    call_node = call(helper, [load(name), bounds, names(spec.carried), *brk_index(spec)])
    if spec.unrolled:
        call_node.keywords = [ast.keyword("unrolled", ast.Constant(True))]
    loop = [*pre, *start_values(spec, node), *brk_init(spec, node), body]
    target_after = [store(spec.target, load(spec.last), node)] if spec.last else []
    return [*loop, assign(spec.carried, call_node, node), *target_after]


def start_values(spec: LoopSpec, where: ast.stmt) -> list[ast.stmt]:
    """Carried names that may be unbound start as UNBOUND; the target's carried copy starts
    as the target (it keeps its value when the loop runs zero times, as in Python)."""
    marks = [(name, UNBOUND_NAME) for name in spec.unbound]
    marks += [(name, UNSEEN_NAME) for name in spec.unseen]
    starts = [
        store(spec.last if name == spec.target and spec.last else name, load(mark), where)
        for name, mark in marks
    ]
    if spec.last and spec.target not in spec.unbound + spec.unseen:
        starts.append(store(spec.last, load(spec.target), where))
    return starts


def _head(node: ast.For, line: int) -> tuple[list[ast.stmt], str, list[ast.stmt], tuple]:
    """(statements before the loop, the body's first parameter, statements binding the
    target, (helper, bounds)). They load the names ``range``/``enumerate``/``zip`` first, as
    Python does: the trace reads them there, so one rebound since is seen by its guards."""
    pre, first, bind, bounds = _lowered_head(node, line)
    names, it = [], node.iter
    while isinstance(it, ast.Call) and getattr(it.func, "id", "") in ("range", "enumerate", "zip"):
        names.append(located(ast.Expr(load(it.func.id)), node))
        it = it.args[0] if it.args else None
    return names + pre, first, bind, bounds


def _lowered_head(node: ast.For, line: int) -> tuple:
    it, target = node.iter, node.target
    kind = it.func.id if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) else ""
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Attribute)
        and it.func.attr == "ndindex"
    ):
        idx = f"__ac_idx_{line}"
        bind = [located(ast.Assign([target], load(idx)), node)]
        return [], idx, bind, (NDINDEX, ast.Tuple(list(it.args), ast.Load()))
    if kind == "range" and isinstance(target, ast.Name):
        return [], target.id, [], (FOR, ast.Tuple(list(it.args), ast.Load()))
    if kind == "enumerate" and _is_range(it.args[0]):
        return _enumerate_range(node, line)
    k = f"__ac_k_{line}"
    seqs = it.args if kind == "zip" else it.args[:1] if kind == "enumerate" else [it]
    temps = [f"__ac_seq_{line}_{j}" for j in range(len(seqs))]
    pre = [assign(tuple(temps), call(ITER, list(seqs)), node)]
    items = [ast.Subscript(load(t), load(k), ast.Load()) for t in temps]
    if kind == "enumerate":
        start, pre2 = _start(it, line, node)
        pre += pre2
        items = [_plus(load(k), start), *items]
    value = items[0] if kind not in ("zip", "enumerate") else ast.Tuple(items, ast.Load())
    bind = [located(ast.Assign([target], value), node)]
    bounds = ast.Tuple([call(LEN, [load(t) for t in temps])], ast.Load())
    return pre, k, bind, (FOR, bounds)


def _is_range(expr: ast.expr) -> bool:
    return (
        isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "range"
    )


def _start(it: ast.Call, line: int, where: ast.stmt) -> tuple[ast.expr | None, list[ast.stmt]]:
    """``enumerate``'s start, evaluated once (after the iterable, as Python does)."""
    start = it.args[1] if len(it.args) > 1 else next((k.value for k in it.keywords), None)
    if start is None or isinstance(start, ast.Constant):
        return start, []
    name = f"__ac_start_{line}"
    return load(name), [store(name, start, where)]


def _plus(expr: ast.expr, start: ast.expr | None) -> ast.expr:
    if start is None or (isinstance(start, ast.Constant) and start.value == 0):
        return expr
    return ast.BinOp(expr, ast.Add(), start)


def _enumerate_range(node: ast.For, line: int) -> tuple:
    """``enumerate(range(a, b, c))``: iterate the range; the index is ``(v - a) // c``."""
    it = node.iter
    args = list(it.args[0].args)
    v, pre = f"__ac_v_{line}", []
    low: ast.expr = ast.Constant(0)
    if len(args) > 1:
        pre.append(store(f"__ac_lo_{line}", args[0], node))
        low = args[0] = load(f"__ac_lo_{line}")
    start, pre2 = _start(it, line, node)
    index: ast.expr = ast.BinOp(load(v), ast.Sub(), low)
    if len(args) == 3:
        index = ast.BinOp(index, ast.FloorDiv(), args[2])
    value = ast.Tuple([_plus(index, start), load(v)], ast.Load())
    bind = [located(ast.Assign([node.target], value), node)]
    return pre + pre2, v, bind, (FOR, ast.Tuple(args, ast.Load()))
