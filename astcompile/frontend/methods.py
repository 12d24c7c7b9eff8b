"""What a call reaches when it does not name a function: a method through ``self`` or ``cls``,
a callable object, a ``functools.partial``.

The resolvers use this to give such calls the verdict a call by name gets (frontend/resolve.py):
``self.mask(x)`` in a method is judged by the class's own ``mask``, a callable object by its
class's ``__call__``, a partial by its function. No libcst here: the trace's callee check
(frontend/callees.py) and the call-time dispatch use it too.
"""

from __future__ import annotations

import ast
import functools
import types
from typing import Any

from astcompile import registry

#: Decorators that make a def no method to call: reading the attribute calls the def.
_ACCESSORS = frozenset(("property", "cached_property", "setter", "getter", "deleter"))


def called_object(obj: Any) -> Any | None:
    """What a call of ``obj`` runs when that is another object: a partial's function, a
    callable object's ``__call__`` (looked up on its class, as Python does: a function, or a
    compiled one); None otherwise."""
    if type(obj) is functools.partial:
        return obj.func
    if isinstance(obj, (type, types.FunctionType, types.MethodType, types.BuiltinFunctionType)):
        return None
    call = class_call(type(obj))
    return call if isinstance(call, types.FunctionType) or registry.is_compiled(call) else None


def class_call(cls: type) -> Any:
    """``cls.__call__`` as Python finds it for a call of an instance, without running a
    descriptor (None when the class has none of its own or inherited)."""
    for klass in cls.__mro__:
        if "__call__" in vars(klass):
            return vars(klass)["__call__"]
    return None


def owner_class_name(fn: Any) -> str | None:
    """The dotted name, in ``fn``'s globals, of the class ``fn`` is a method of, when its first
    parameter is the instance or the class (not a staticmethod); None for anything else (a
    module function, a method of a class made inside a function)."""
    qualname = getattr(fn, "__qualname__", "")
    owner, _, name = qualname.rpartition(".")
    if not owner or "<locals>" in owner or not isinstance(fn, types.FunctionType):
        return None
    cls: Any = fn.__globals__.get(owner.split(".")[0])
    for part in owner.split(".")[1:]:
        cls = getattr(cls, part, None)
    if not isinstance(cls, type):
        return None
    held = vars(cls).get(name)
    if isinstance(held, classmethod):
        held = held.__func__
    while registry.is_compiled(held):
        held = getattr(held, "__wrapped__", None)
    return owner if held is fn else None


def class_methods(syntax: ast.Module) -> dict[int, tuple[str, dict[str, int]]]:
    """For the static resolver: each method of a top-level class with a receiver (the instance
    or the class), by the line of its ``def``: its class's name and that class's methods (name
    -> ``def`` line). Properties are left out: calling one calls what it returns."""
    found: dict[int, tuple[str, dict[str, int]]] = {}
    for node in syntax.body:
        if not isinstance(node, ast.ClassDef):
            continue
        defs = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        methods = {d.name: d.lineno for d in defs if not _ACCESSORS & _decorator_names(d)}
        for fdef in defs:
            names = _decorator_names(fdef)
            if "staticmethod" not in names and not _ACCESSORS & names:
                found[fdef.lineno] = (node.name, methods)
    return found


def _decorator_names(fdef: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set()
    for decorator in fdef.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, ast.Attribute):
            names.add(target.attr)
    return names
