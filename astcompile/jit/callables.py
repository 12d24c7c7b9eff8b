"""Every kind of Python callable compiles: what ``compile`` and ``explain`` make of one that is
not a plain function.

A bound method (``compile(model.forward)``, a classmethod through its class) is its function
compiled and bound again to the same object, so ``self``'s attributes are reads guarded at
every call, as for a method decorated in its class. A callable object is its class's
``__call__`` compiled and bound to the object, looked up again at every call as Python does. A
``functools.partial`` is a partial of its function compiled, with the same arguments: they are
passed in at every call (the compiled function's arguments, guarded like any other).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

from astcompile import registry
from astcompile.frontend.methods import called_object

#: What compiles a plain Python function with the caller's options.
Make = Callable[[Callable], Any]


def compiled_form(fn: Any, make: Make) -> Any | None:
    """What ``compile(fn)`` returns for a callable ``fn`` that is not a function (None for a
    function, or anything else ``make`` takes as it is)."""
    if isinstance(fn, CompiledCallable) or _is_compiled_partial(fn):
        fn = fn.__wrapped__  # compiled again, with the options of this call
    if type(fn) is types.MethodType:
        return types.MethodType(make(fn.__func__), fn.__self__)
    if type(fn) is functools.partial:
        return compiled_partial(fn, make)
    if _call_of(fn) is not None:
        return CompiledCallable(fn, make)
    return None


def _call_of(obj: Any) -> Any | None:
    """The ``__call__`` of a callable object's class, where it is a Python function (or one
    compiled in the class)."""
    if registry.is_compiled(obj) or isinstance(obj, CompiledCallable):
        return None
    return None if type(obj) is functools.partial else called_object(obj)


def compiled_partial(partial: functools.partial, make: Make) -> functools.partial:
    """``compile(partial(f, *args, **kw))``: a partial of ``f`` compiled, holding the same
    ``args`` and the very same ``keywords`` dict (changed in place, it is seen at the next
    call), so the arguments are passed in at every call, and the call costs what the
    partial's own call costs."""
    compiled = compiled_form(partial.func, make) or make(partial.func)
    made = functools.partial(compiled)
    marks = {registry.COMPILED_ATTR: True, "__wrapped__": partial}
    made.__setstate__((compiled, partial.args, partial.keywords, {**vars(partial), **marks}))
    return made


class CompiledCallable:
    """``compile(obj)`` for an object with a ``__call__``: that function compiled, called with
    ``obj`` as ``self``. ``type(obj).__call__`` is looked up at every call; a new one (the class
    changed, or ``obj.__class__``) is compiled in turn."""

    def __init__(self, obj: Any, make: Make) -> None:
        self.__wrapped__ = obj
        setattr(self, registry.COMPILED_ATTR, True)
        self.__name__ = type(obj).__name__
        self.__qualname__ = type(obj).__qualname__
        self.__doc__ = type(obj).__call__.__doc__
        self._make = make
        self._call = type(obj).__call__  # what the class gives, compared at every call
        self.compiled = make(_call_of(obj))

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        obj = self.__wrapped__
        if type(obj).__call__ is not self._call:
            call = _call_of(obj)
            if call is None:  # no Python function any more: as Python calls it
                return obj(*args, **kwargs)
            self._call, self.compiled = type(obj).__call__, self._make(call)
        return self.compiled(obj, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<astcompile compiled {type(self.__wrapped__).__qualname__}.__call__>"


def _is_compiled_partial(fn: Any) -> bool:
    return type(fn) is functools.partial and vars(fn).get(registry.COMPILED_ATTR) is True


def explained_call(fn: Any, args: tuple, kwargs: dict) -> tuple[Callable, tuple, dict, Any]:
    """``explain(fn, *args, **kwargs)`` as a call of a plain function: (the function, its
    arguments, its keywords, the compiled function whose options to keep, or None)."""
    options = None
    while True:
        if type(fn) is types.MethodType:
            fn, args = fn.__func__, (fn.__self__, *args)
        elif type(fn) is functools.partial:
            fn, args, kwargs = fn.func, (*fn.args, *args), {**fn.keywords, **kwargs}
        elif isinstance(fn, CompiledCallable):
            fn = types.MethodType(fn.compiled, fn.__wrapped__)
        elif registry.is_compiled(fn) and not isinstance(fn, types.FunctionType):
            options = options or fn
            fn = fn.__wrapped__
        elif _call_of(fn) is not None:
            fn, args = _call_of(fn), (fn, *args)
        else:
            return fn, args, kwargs, options
