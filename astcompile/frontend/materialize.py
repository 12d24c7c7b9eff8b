"""Turn generated source back into a live function that behaves like the user's.

The new function must see the same module globals and the *same closure cells* as the original
(so a later ``nonlocal`` rebinding is visible), and it needs a few names of its own (region
objects, ``__ac_call``). Those extra names become closure cells too, never globals: writing them
into the user's module would leak into their namespace.

The trick: compile ``def __ac_factory(<free names>): <def>; return <name>`` and take the inner
code object, whose free variables are then bound to cells we choose. The factory is built as an
AST around the parsed ``def``, so no line is re-indented or shifted: tracebacks show the user's
file and line numbers exactly. Inside the factory the ``def`` is renamed (``__ac_self``): under
its own name it would bind that name in the factory, and a recursive call ``fact(n - 1)`` would
read the factory's local instead of the global (or closure cell) the original reads.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Callable

from astcompile.frontend.code_match import class_of
from astcompile.frontend.lowering_parts import arguments_of
from astcompile.frontend.spec import def_name
from astcompile.frontend.warn_calls import WARN, WARNER, route_warnings, warn_helpers

_SELF = "__ac_self"  # the def's name inside the factory: binds no name the body reads


def build_function(
    source: str | ast.Module,
    name: str,
    template: Callable,
    extra_free: dict[str, object],
    filename: str,
    structured: tuple = (),
) -> types.FunctionType:
    """Compile the padded ``def name`` in ``source`` (text, or a tree at the user's lines)
    as a sibling of ``template``.

    Defaults, ``__kwdefaults__``, ``__doc__`` and ``__qualname__`` are copied when ``name`` is
    the template's own ``def`` name (the rewritten function); a region body gets none of them.
    The code's name, not ``__name__``, decides: ``functools.wraps`` renames a wrapper. The code
    of either is named as the user's (``co_name``, ``co_qualname``): its frames are the user's
    function's, in tracebacks, ``inspect.stack()`` and ``sys._getframe(1).f_code.co_name``.
    """
    template_free = template.__code__.co_freevars
    free = (*template_free, *extra_free)
    owner = class_of(template.__code__)
    helpers = warn_helpers(template) if WARNER in extra_free else frozenset()
    code = _inner_code(source, name, free, filename, structured, owner, helpers)
    closure = tuple(
        types.CellType(extra_free[var])
        if var in extra_free
        else template.__closure__[template_free.index(var)]
        for var in code.co_freevars
    )
    same = name == def_name(template)
    qualname = template.__code__.co_qualname if same else f"{template.__qualname__}.{name}"
    code = code.replace(
        co_name=template.__code__.co_name, co_qualname=template.__code__.co_qualname
    )
    function = types.FunctionType(
        code, template.__globals__, name, template.__defaults__ if same else None, closure or None
    )
    function.__module__ = template.__module__
    function.__qualname__ = qualname
    if same:
        function.__kwdefaults__ = template.__kwdefaults__
        function.__doc__ = template.__doc__
    return function


def _inner_code(
    source: str | ast.Module,
    name: str,
    free: tuple[str, ...],
    filename: str,
    structured: tuple = (),
    owner: str | None = None,
    helpers: frozenset[str] = frozenset(),
) -> types.CodeType:
    """The code object of ``def name`` compiled inside a factory that binds ``free``; planned
    loops are lowered to structured calls on the way (see frontend/loop_plan.py). The def of
    a method (of class ``owner``) has its private names mangled, as its class body did."""
    module = source if isinstance(source, ast.Module) else ast.parse(source, filename=filename)
    if "__ac_create" in free:
        from astcompile.frontend.lowering import lower_structured

        module = lower_structured(module, structured)
    elif structured:  # the region as written (a plain run of it): its loops stay loops
        from astcompile.frontend.lowering import seed_unbound

        module = seed_unbound(module, structured)
    if WARN in free:  # warn(..., stacklevel=2) names the user's frames (frontend/warn_calls.py)
        module = route_warnings(module, helpers)
    definitions = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(definitions) != 1 or definitions[0].name != name:
        raise ValueError(f"expected one 'def {name}' in the generated source")
    if owner is not None:
        _Mangle(owner).generic_visit(definitions[0])
    definitions[0].name = _SELF
    factory = ast.FunctionDef(
        name="__ac_factory",
        args=arguments_of(free),
        body=[definitions[0], ast.Return(ast.Name(_SELF, ast.Load()))],
        decorator_list=[],
        returns=None,
        type_comment=None,
        lineno=1,
        col_offset=0,
    )
    ast.fix_missing_locations(factory)
    compiled = compile(ast.Module(body=[factory], type_ignores=[]), filename, "exec")
    factory_code = _const_code(compiled, "__ac_factory")
    return _const_code(factory_code, _SELF).replace(co_name=name)


def _const_code(code: types.CodeType, name: str) -> types.CodeType:
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    raise ValueError(f"no code object named {name!r}")  # pragma: no cover - compile guarantees it


class _Mangle(ast.NodeTransformer):
    """``self.__w`` in a method of class ``Net`` is ``self._Net__w``: the compiler mangles the
    private names of a class body (CPython's ``_Py_Mangle``), and a def compiled outside it
    would read an attribute no object has. Our own ``__ac_`` names are never private."""

    def __init__(self, owner: str) -> None:
        self.prefix = "_" + owner.lstrip("_")

    def mangled(self, name: str) -> str:
        private = name.startswith("__") and not name.endswith("__") and "." not in name
        if not private or name.startswith("__ac_") or self.prefix == "_":
            return name
        return self.prefix + name

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field in _NAMED.get(type(node), ()):
            value = getattr(node, field)
            if isinstance(value, str):
                setattr(node, field, self.mangled(value))
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            node.names = [self.mangled(n) for n in node.names]
        return super().generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
        return self._bind_mangled(self.generic_visit(node))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> list[ast.stmt]:
        """A class defined in the method mangles its own body by its own name (``s.__z`` in
        ``class Inner`` is ``s._Inner__z``); its bases and decorators run in the method."""
        body, node.body = node.body, []
        node.body = _Mangle(node.name).generic_visit(ast.Module(body, [])).body
        return self._bind_mangled(self.generic_visit(node))

    def _bind_mangled(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list:
        """``def __f`` in a method binds ``_Net__f`` but keeps ``__name__`` ``'__f'``: the def
        keeps its name, and the mangled name takes the object from it."""
        bound = self.mangled(node.name)
        if bound == node.name:
            return [node]
        at = {"lineno": node.lineno, "col_offset": node.col_offset}
        take = ast.Assign(
            [ast.Name(bound, ast.Store(), **at)], ast.Name(node.name, ast.Load(), **at), **at
        )
        return [node, take, ast.Delete([ast.Name(node.name, ast.Del(), **at)], **at)]


#: The fields holding a name CPython mangles, by node type (never a call's keywords:
#: ``dict(__k=1)`` is ``{'__k': 1}`` in a class too).
_NAMED: dict[type, tuple[str, ...]] = {
    ast.Name: ("id",),
    ast.Attribute: ("attr",),
    ast.arg: ("arg",),
    ast.alias: ("name", "asname"),
    ast.ExceptHandler: ("name",),
    ast.MatchAs: ("name",),
    ast.MatchStar: ("name",),
    ast.MatchMapping: ("rest",),
}
