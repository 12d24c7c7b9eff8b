"""A recursive function on ints and floats, as one recursive C function.

``fib(n)`` spends its time in calls: each level is a Python frame, and a compiled function adds
its own call around each (at best ~10 ns, as much as fib's own statements). When every statement
is scalar arithmetic, a comparison, an ``if``, an assignment, a ``return`` or a call of the
function itself, the whole call tree runs in C instead::

    def fib(n):                      static int64_t fib(astc_calls *s, int64_t n) {
        if n < 2:                        if (astc_enter(s)) return 0;
            return n                     if (n < 2) { s->depth--; return n; }
        return fib(n - 1) + fib(n - 2)   ... astc_add(s, fib(s, astc_sub(s, n, 1)), ...)

one C function per tuple of argument types (``int`` is ``int64_t``, ``float`` is ``double``).

Python's answer, or none: Python ints have no bound, so every int operation checks overflow; a
division or modulo checks its divisor (and floors as Python does); the recursion checks its
depth against what Python would allow. Any of these sets ``failed``, every pending call returns
at once, and the caller runs the user's function, which gives Python's answer or raises Python's
error. The statements have no side effects, so running them again is the same program. What
this module cannot say exactly (a float ``//``, ``**``, a comparison of an int with a float, a
bool result, a name it does not know) it refuses, and the function runs as written.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from typing import Any

C_TYPES = {"int": "int64_t", "float": "double"}
PY_TYPES = {int: "int", float: "float"}

#: int operator -> checked helper; float operator -> C infix (None: refused for floats)
_INT_OPS = {
    ast.Add: "astc_add",
    ast.Sub: "astc_sub",
    ast.Mult: "astc_mul",
    ast.FloorDiv: "astc_floordiv",
    ast.Mod: "astc_mod",
}
_FLOAT_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
#: floats' ordered comparisons, quiet: C's ``<`` on NaN raises the invalid flag, Python's not
_QUIET = {ast.Lt: "isless", ast.LtE: "islessequal", ast.Gt: "isgreater", ast.GtE: "isgreaterequal"}

HELPERS = """\
#include <stdint.h>
typedef struct { int failed; int64_t depth, limit; } astc_calls;
static inline int64_t astc_fail(astc_calls *s) { s->failed = 1; return 0; }
static inline int astc_enter(astc_calls *s) {
    if (s->failed || ++s->depth > s->limit) { s->failed = 1; return 1; }
    return 0;
}
static inline int64_t astc_add(astc_calls *s, int64_t a, int64_t b) {
    int64_t r; return __builtin_add_overflow(a, b, &r) ? astc_fail(s) : r;
}
static inline int64_t astc_sub(astc_calls *s, int64_t a, int64_t b) {
    int64_t r; return __builtin_sub_overflow(a, b, &r) ? astc_fail(s) : r;
}
static inline int64_t astc_mul(astc_calls *s, int64_t a, int64_t b) {
    int64_t r; return __builtin_mul_overflow(a, b, &r) ? astc_fail(s) : r;
}
static inline int64_t astc_neg(astc_calls *s, int64_t a) { return a == INT64_MIN ? astc_fail(s) : -a; }
static inline int64_t astc_floordiv(astc_calls *s, int64_t a, int64_t b) {
    if (b == 0 || (a == INT64_MIN && b == -1)) return astc_fail(s);
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t astc_mod(astc_calls *s, int64_t a, int64_t b) {
    if (b == 0) return astc_fail(s);
    if (b == -1) return 0;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline double astc_fdiv(astc_calls *s, double a, double b) {
    if (b == 0.0) { s->failed = 1; return 0.0; }
    return a / b;
}
#define ASTC_EXACT (INT64_C(1) << 53)
static inline double astc_idiv(astc_calls *s, int64_t a, int64_t b) {
    if (b == 0 || a > ASTC_EXACT || a < -ASTC_EXACT || b > ASTC_EXACT || b < -ASTC_EXACT) {
        s->failed = 1; return 0.0;
    }
    return (double)a / (double)b;
}
"""


class Refused(Exception):
    """What the function does that this module does not compile (it then runs as written)."""


@dataclass(frozen=True)
class ScalarC:
    """The C source of one specialisation, and how to call it."""

    source: str
    cdecl: str
    entry: str
    result: str  # "int" or "float"


def function_tree(fn: Any) -> ast.FunctionDef | None:
    """``fn``'s definition when it has only plain positional parameters and no decorators
    but ours; None otherwise (or without source)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    fdef = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != fn.__name__:
        return None
    params = fdef.args
    if params.posonlyargs or params.vararg or params.kwonlyargs or params.kwarg or params.defaults:
        return None
    return fdef


#: Every kind of node a function this module compiles may hold (types are checked by emit).
_SHAPES = (
    (ast.arguments, ast.arg, ast.Return, ast.Assign, ast.If, ast.Pass, ast.Expr, ast.Constant),
    (ast.Name, ast.Load, ast.Store, ast.BinOp, ast.UnaryOp, ast.IfExp, ast.Call, ast.Compare),
    (ast.BoolOp, ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd, ast.Div, *_INT_OPS, *_COMPARE),
)
_SHAPE = tuple(kind for row in _SHAPES for kind in row)


def scalar_shaped(fdef: ast.FunctionDef) -> bool:
    """Whether ``fdef`` calls itself and holds only statements and expressions :func:`emit`
    may compile, for some argument types."""
    calls_itself = False
    # Its parameters and statements, not its decorators: ``@astcompile.compile(backend="c")``
    # calls something else once, at definition (what the name means is checked per call).
    for node in (n for top in (fdef.args, *fdef.body) for n in ast.walk(top)):
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id == fdef.name):
                return False
            calls_itself = True
        if not isinstance(node, _SHAPE):
            return False
    return calls_itself


def emit(fdef: ast.FunctionDef, types: tuple[str, ...]) -> ScalarC:
    """The C source of ``fdef`` for arguments of ``types``; raises :class:`Refused`."""
    params = [a.arg for a in fdef.args.args]
    if len(params) != len(types):
        raise Refused("argument count")
    result = _result_type(fdef, dict(zip(params, types)))
    body = _Body(fdef.name, types, result, dict(zip(params, types)))
    lines = body.block(_without_docstring(fdef.body), 1)
    if not _returns(fdef.body):
        raise Refused("a path that ends without return")
    name = f"astc_rec_{fdef.name}"
    args = ", ".join(f"{C_TYPES[t]} v_{p}" for p, t in zip(params, types))
    ctype = C_TYPES[result]
    local = [f"    {C_TYPES[t]} v_{n};" for n, t in body.locals.items() if n not in params]
    head = f"static {ctype} {name}(astc_calls *s, {args})"
    entry_args = ", ".join(f"{C_TYPES[t]} a{i}" for i, t in enumerate(types))
    entry = f"{ctype} {name}_entry(int64_t limit, int *failed, {entry_args})"
    call = ", ".join(f"a{i}" for i in range(len(types)))
    source = "\n".join(
        [
            HELPERS,
            f"{head};",
            f"{head} {{",
            "    if (astc_enter(s)) return 0;",
            *local,
            *lines,
            "}",
            f"{entry} {{",
            "    astc_calls s = {0, 0, limit};",
            f"    {ctype} r = {name}(&s, {call});",
            "    *failed = s.failed;",
            "    return r;",
            "}",
            "",
        ]
    )
    return ScalarC(source, f"{entry};", f"{name}_entry", result)


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return body[1:]
    return body


def _returns(body: list[ast.stmt]) -> bool:
    """Whether every path through ``body`` ends in a ``return``."""
    last = body[-1] if body else None
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _returns(last.body) and _returns(last.orelse)


def _result_type(fdef: ast.FunctionDef, params: dict[str, str]) -> str:
    """The one type every ``return`` gives: first from the returns that need no call of the
    function, then checked against all of them with it."""
    for guess in ("int", "float"):
        try:
            found = _Body(fdef.name, tuple(params.values()), guess, dict(params))
            found.block(_without_docstring(fdef.body), 1)
        except Refused:
            continue
        if found.returned == {guess}:
            return guess
    raise Refused("returns of more than one type, or of a type other than int and float")


class _Body:
    """Statements and expressions to C, with the type of every name."""

    def __init__(self, name: str, types: tuple[str, ...], result: str, names: dict[str, str]):
        self.name, self.types, self.result = name, types, result
        self.locals = names  # every name assigned, with its one type
        self.assigned = set(names)  # names assigned on every path to here
        self.returned: set[str] = set()

    def block(self, body: list[ast.stmt], depth: int) -> list[str]:
        return [line for stmt in body for line in self.stmt(stmt, depth)]

    def stmt(self, node: ast.stmt, depth: int) -> list[str]:
        pad = "    " * depth
        if isinstance(node, ast.Return) and node.value is not None:
            text, kind = self.expr(node.value)
            self.returned.add(kind)
            if kind != self.result:
                raise Refused("a return of another type")
            return [f"{pad}{{ {C_TYPES[kind]} r = {text}; s->depth--; return r; }}"]
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not isinstance(target, ast.Name) or target.id == self.name:
                raise Refused("an assignment to something other than a local name")
            text, kind = self.expr(node.value)
            if self.locals.setdefault(target.id, kind) != kind:
                raise Refused(f"{target.id} holds values of two types")
            self.assigned.add(target.id)
            return [f"{pad}v_{target.id} = {text};"]
        if isinstance(node, ast.If):
            return self._if(node, depth)
        if isinstance(node, ast.Pass):
            return []
        raise Refused(f"a {type(node).__name__} statement")

    def _if(self, node: ast.If, depth: int) -> list[str]:
        pad = "    " * depth
        test = self.test(node.test)
        before = set(self.assigned)
        body = self.block(node.body, depth + 1)
        after_body, self.assigned = self.assigned, set(before)
        orelse = self.block(node.orelse, depth + 1)
        ends = (_returns(node.body), _returns(node.orelse))
        both = [a for a, ended in zip((after_body, self.assigned), ends) if not ended]
        self.assigned = set.intersection(*both) if both else before
        if not orelse:
            return [f"{pad}if ({test}) {{", *body, f"{pad}}}"]
        return [f"{pad}if ({test}) {{", *body, f"{pad}}} else {{", *orelse, f"{pad}}}"]

    def test(self, node: ast.expr) -> str:
        """A condition: comparisons, ``and``/``or``/``not`` of conditions, a number's truth."""
        if isinstance(node, ast.BoolOp):
            join = " && " if isinstance(node.op, ast.And) else " || "
            return "(" + join.join(self.test(v) for v in node.values) + ")"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return f"!{self.test(node.operand)}"
        if isinstance(node, ast.Compare):
            return self._compare(node)
        text, _ = self.expr(node)
        return f"(({text}) != 0)"

    def _compare(self, node: ast.Compare) -> str:
        """Values of one type (Python compares an int with a float exactly, C through a
        double: only an int constant that a double holds exactly meets a float)."""
        parts, left = [], self._compared(node.left, node.comparators[0])
        for op, comparator, before in zip(
            node.ops, node.comparators, [node.left, *node.comparators]
        ):
            right = self._compared(comparator, before)
            if type(op) not in _COMPARE or left[1] != right[1]:
                raise Refused("a comparison of an int with a float, or not by value")
            if left[1] == "float" and type(op) in _QUIET:
                parts.append(f"__builtin_{_QUIET[type(op)]}({left[0]}, {right[0]})")
            else:
                parts.append(f"({left[0]} {_COMPARE[type(op)]} {right[0]})")
            left = right
        return "(" + " && ".join(parts) + ")"

    def _compared(self, node: ast.expr, other: ast.expr) -> tuple[str, str]:
        text, kind = self.expr(node)
        exact = isinstance(node, ast.Constant) and abs(node.value) <= 1 << 53
        if kind == "int" and exact and self.expr(other)[1] == "float":
            return f"{float(node.value)!r}", "float"
        return text, kind

    def expr(self, node: ast.expr) -> tuple[str, str]:
        """C text and type ("int" or "float") of a value."""
        if isinstance(node, ast.Constant) and type(node.value) in PY_TYPES:
            return _constant(node.value)
        if isinstance(node, ast.Name):
            if node.id not in self.assigned:
                raise Refused(f"{node.id} is not a local assigned on every path")
            return f"v_{node.id}", self.locals[node.id]  # v_: no user name meets ours
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            text, kind = self.expr(node.operand)
            if isinstance(node.op, ast.UAdd):
                return text, kind
            return (f"astc_neg(s, {text})" if kind == "int" else f"(-{text})"), kind
        if isinstance(node, ast.IfExp):
            (a, ka), (b, kb) = self.expr(node.body), self.expr(node.orelse)
            if ka != kb:
                raise Refused("a conditional expression of two types")
            return f"({self.test(node.test)} ? {a} : {b})", ka
        if isinstance(node, ast.Call):
            return self._call(node)
        raise Refused(f"a {type(node).__name__} expression")

    def _binop(self, node: ast.BinOp) -> tuple[str, str]:
        (a, ka), (b, kb) = self.expr(node.left), self.expr(node.right)
        op = type(node.op)
        if op is ast.Div:
            if ka == kb == "int":
                return f"astc_idiv(s, {a}, {b})", "float"
            return f"astc_fdiv(s, {_as_float(a, ka)}, {_as_float(b, kb)})", "float"
        if ka == kb == "int" and op in _INT_OPS:
            return f"{_INT_OPS[op]}(s, {a}, {b})", "int"
        if op in _FLOAT_OPS:
            return f"({_as_float(a, ka)} {_FLOAT_OPS[op]} {_as_float(b, kb)})", "float"
        raise Refused(f"the operator {type(node.op).__name__} on {ka} and {kb}")

    def _call(self, node: ast.Call) -> tuple[str, str]:
        if not isinstance(node.func, ast.Name) or node.func.id != self.name or node.keywords:
            raise Refused("a call of something other than the function itself")
        args = [self.expr(a) for a in node.args]
        if tuple(kind for _, kind in args) != self.types:
            raise Refused("a call of itself with arguments of other types")
        inner = ", ".join(text for text, _ in args)
        return f"astc_rec_{self.name}(s, {inner})", self.result


def _as_float(text: str, kind: str) -> str:
    return text if kind == "float" else f"(double)({text})"


def _constant(value: Any) -> tuple[str, str]:
    if type(value) is int:
        if not -(1 << 63) < value < (1 << 63):
            raise Refused("an int constant outside int64")
        return f"INT64_C({value})", "int"
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        raise Refused("a float constant that is not finite")
    return text, "float"
