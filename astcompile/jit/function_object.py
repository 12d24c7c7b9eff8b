"""What a compiled function has of the function it stands for, as an object.

After ``@astcompile.compile def f``, the program's ``f`` is the compiled object: what the
program reads or rebinds of ``f`` it reads or rebinds of it. ``functools.update_wrapper``
copies what a decorator's wrapper copies (``__name__``, ``__qualname__``, ``__doc__``,
``__module__``, ``__annotations__``, the attributes in ``__dict__``) and sets ``__wrapped__``.
A function's own ``__code__``, ``__defaults__`` and ``__kwdefaults__`` (and its read-only
``__globals__`` and ``__closure__``) are the function's, read and written through: rebinding
``f.__defaults__`` on the decorated name changes the calls, as on the function, because every
path reads them there (``jit/freshness.py``: a swapped ``__code__`` is built again, the
rewrite takes the defaults at each call; the plain route is the function itself).

torch.compile's wrapper is a ``functools.wraps`` function ``_fn(*args, **kwargs)``: its
``__defaults__`` (None) and ``__code__`` are the wrapper's own, and rebinding them changes
nothing of the calls. A compiled function here never tells the program something that the
function is not, nor takes a rebinding that its calls then ignore.
"""

from __future__ import annotations

from typing import Any


def _through(name: str, writable: bool = True) -> property:
    """The attribute ``name`` of the wrapped function (``self.fn``), read and written there
    (read-only where a function's is)."""

    def get(self: Any) -> Any:
        return getattr(self.fn, name)

    def put(self: Any, value: Any) -> None:
        setattr(self.fn, name, value)

    def drop(self: Any) -> None:
        delattr(self.fn, name)

    if not writable:
        return property(get, doc=f"the function's ``{name}`` (read-only, as on a function)")
    return property(get, put, drop, doc=f"the function's ``{name}``, read and rebound there")


class FunctionObject:
    """The base of ``CompiledFunction``: the function's own attributes, through it."""

    __slots__ = ()

    __code__ = _through("__code__")
    __defaults__ = _through("__defaults__")
    __kwdefaults__ = _through("__kwdefaults__")
    __globals__ = _through("__globals__", writable=False)
    __closure__ = _through("__closure__", writable=False)
