"""Lower planned loops and branches of a region body (see frontend/loops.py) on its ``ast``.

Done right before the body is compiled, so the rewrite cache needs no libcst to load it, and
every new node takes the line of the statement it replaces: tracebacks keep the user's lines.
"""

from __future__ import annotations

import ast

from astcompile.frontend.spec import BranchSpec, LoopSpec, Spec

FOR, IF = "__ac_for", "__ac_if"


CREATE = "__ac_create"
#: ``np.zeros(shape)`` and friends take no array argument, so NumPy cannot hand them to the
#: tracer: region bodies call them through ``__ac_create`` (see graph/numpy_api.py).
CREATION_NAMES = frozenset({"zeros", "ones", "empty", "full"})


def lower_structured(module: ast.Module, specs: tuple[Spec, ...]) -> ast.Module:
    """Rewrite the planned ``for``/``if`` statements of ``module`` into structured calls, and
    array-creation calls into ``__ac_create`` calls."""
    by_line = {(type(s), s.line): s for s in specs}
    _Lowering(by_line).visit(module)
    ast.fix_missing_locations(module)
    return module


class _Lowering(ast.NodeTransformer):
    def __init__(self, by_line: dict) -> None:
        self.by_line = by_line

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in CREATION_NAMES:
            wrapped = ast.Call(ast.Name(CREATE, ast.Load()), [func, *node.args], node.keywords)
            return ast.copy_location(wrapped, node)
        return node

    def visit_For(self, node: ast.For) -> list[ast.stmt] | ast.For:
        self.generic_visit(node)
        spec = self.by_line.get((LoopSpec, node.lineno))
        if spec is None:
            return node
        name = f"__ac_loop_{node.lineno}"
        body = _function(name, [spec.target, *spec.carried], node.body, spec.carried, node)
        bounds = _tuple(node.iter.args)
        call = _call(FOR, [ast.Name(name, ast.Load()), bounds, _names(spec.carried)])
        return [body, _assign(spec.carried, call, node)]

    def visit_If(self, node: ast.If) -> list[ast.stmt] | ast.If:
        self.generic_visit(node)
        spec = self.by_line.get((BranchSpec, node.lineno))
        if spec is None:
            return node
        then_name, else_name = f"__ac_then_{node.lineno}", f"__ac_else_{node.lineno}"
        then_fn = _function(then_name, spec.names, node.body, spec.names, node)
        else_fn = _function(else_name, spec.names, node.orelse or [ast.Pass()], spec.names, node)
        call = _call(IF, [node.test, ast.Name(then_name, ast.Load()),
                          ast.Name(else_name, ast.Load()), _names(spec.names)])
        return [then_fn, else_fn, _assign(spec.names, call, node)]


def _function(name: str, params: list[str] | tuple[str, ...], body: list[ast.stmt],
              returns: tuple[str, ...], where: ast.stmt) -> ast.FunctionDef:
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    ret = ast.Return(_names(returns))
    fdef = ast.FunctionDef(name=name, args=args, body=[*body, ret], decorator_list=[],
                           returns=None, type_comment=None)
    last = body[-1] if body and hasattr(body[-1], "lineno") else where
    ast.copy_location(ret, last)
    ret.lineno = ret.end_lineno = getattr(last, "end_lineno", None) or last.lineno
    return _located(fdef, where)


def _names(names: tuple[str, ...]) -> ast.Tuple:
    return ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load())


def _tuple(items: list[ast.expr]) -> ast.Tuple:
    return ast.Tuple(list(items), ast.Load())


def _call(func: str, args: list[ast.expr]) -> ast.Call:
    return ast.Call(ast.Name(func, ast.Load()), args, [])


def _assign(names: tuple[str, ...], call: ast.Call, where: ast.stmt) -> ast.stmt:
    if not names:
        return _located(ast.Expr(call), where)
    target = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
    return _located(ast.Assign([target], call), where)


def _located(node: ast.AST, where: ast.stmt) -> ast.AST:
    """Every new node takes the replaced statement's first line."""
    for child in ast.walk(node):
        if "lineno" in child._attributes and getattr(child, "end_lineno", None) is None:
            child.lineno, child.col_offset = where.lineno, where.col_offset
            child.end_lineno, child.end_col_offset = where.lineno, where.col_offset
    return node
