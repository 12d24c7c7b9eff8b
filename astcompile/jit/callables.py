"""Every kind of Python callable compiles: what ``compile`` and ``explain`` make of one that is
not a plain function.

A bound method (``compile(model.forward)``, a classmethod through its class) is its function
compiled and bound again to the same object, so ``self``'s attributes are reads guarded at
every call, as for a method decorated in its class. A callable object is its class's
``__call__`` compiled and bound to the object, looked up again at every call as Python does. A
``functools.partial`` is its function compiled, called with the partial's arguments read at
every call (they become the compiled function's arguments, guarded like any other).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

from astcompile import registry
from astcompile.frontend.methods import called_object, class_call

#: What compiles a plain Python function with the caller's options.
Make = Callable[[Callable], Any]


def compiled_form(fn: Any, make: Make) -> Any | None:
    """What ``compile(fn)`` returns for a callable ``fn`` that is not a function (None for a
    function, or anything else ``make`` takes as it is)."""
    if isinstance(fn, (CompiledPartial, CompiledCallable)):
        fn = fn.__wrapped__  # compiled again, with the options of this call
    if type(fn) is types.MethodType:
        return types.MethodType(make(fn.__func__), fn.__self__)
    if type(fn) is functools.partial:
        return CompiledPartial(fn, make)
    if _call_of(fn) is not None:
        return CompiledCallable(fn, make)
    return None


def _call_of(obj: Any) -> types.FunctionType | None:
    """The ``__call__`` of a callable object's class, where it is a Python function."""
    if registry.is_compiled(obj) or isinstance(obj, (CompiledPartial, CompiledCallable)):
        return None
    return None if type(obj) is functools.partial else called_object(obj)


class _CompiledObject:
    """What both wrappers share: the marks and names of a compiled function."""

    def __init__(self, original: Any) -> None:
        self.__wrapped__ = original
        setattr(self, registry.COMPILED_ATTR, True)
        self.__name__ = getattr(original, "__name__", type(original).__name__)
        self.__qualname__ = getattr(original, "__qualname__", self.__name__)
        self.__doc__ = getattr(original, "__doc__", None)


class CompiledPartial(_CompiledObject):
    """``compile(partial(f, *args, **kw))``: ``f`` compiled; the partial's arguments (its
    ``keywords`` dict may be changed in place) are read at every call and passed in."""

    def __init__(self, partial: functools.partial, make: Make) -> None:
        super().__init__(partial)
        self.compiled = compiled_form(partial.func, make) or make(partial.func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        partial = self.__wrapped__
        return self.compiled(*partial.args, *args, **{**partial.keywords, **kwargs})

    def __repr__(self) -> str:
        return f"<astcompile compiled {self.__wrapped__!r}>"


class CompiledCallable(_CompiledObject):
    """``compile(obj)`` for an object with a ``__call__``: that function compiled, called with
    ``obj`` as ``self``. ``type(obj).__call__`` is looked up at every call; a new one (the class
    changed, or ``obj.__class__``) is compiled in turn."""

    def __init__(self, obj: Any, make: Make) -> None:
        super().__init__(obj)
        self._make = make
        self._call = _call_of(obj)
        self.compiled = make(self._call)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        obj = self.__wrapped__
        call = class_call(type(obj))
        if call is not self._call:
            if not isinstance(call, types.FunctionType):
                return obj(*args, **kwargs)
            self._call, self.compiled = call, self._make(call)
        return self.compiled(obj, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<astcompile compiled {type(self.__wrapped__).__qualname__}.__call__>"


def explained_call(fn: Any, args: tuple, kwargs: dict) -> tuple[Callable, tuple, dict, Any]:
    """``explain(fn, *args, **kwargs)`` as a call of a plain function: (the function, its
    arguments, its keywords, the compiled function whose options to keep, or None)."""
    options = None
    while True:
        if type(fn) is types.MethodType:
            fn, args = fn.__func__, (fn.__self__, *args)
        elif type(fn) is functools.partial:
            fn, args, kwargs = fn.func, (*fn.args, *args), {**fn.keywords, **kwargs}
        elif isinstance(fn, CompiledPartial):
            partial = fn.__wrapped__
            fn, args, kwargs = fn.compiled, (*partial.args, *args), {**partial.keywords, **kwargs}
        elif isinstance(fn, CompiledCallable):
            fn = types.MethodType(fn.compiled, fn.__wrapped__)
        elif registry.is_compiled(fn) and not isinstance(fn, types.FunctionType):
            options = options or fn
            fn = fn.__wrapped__
        elif _call_of(fn) is not None:
            fn, args = _call_of(fn), (fn, *args)
        else:
            return fn, args, kwargs, options
