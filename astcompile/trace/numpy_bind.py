"""Calls into the tracer's NumPy tables bind their arguments through NumPy's own signature.

``a.var(None, None, None, 1)`` is ``ddof=1`` because NumPy's order is ``(axis, dtype, out, ddof,
keepdims)``; ``np.max(a, 0, None, True)`` is ``keepdims=True`` because ``np.max`` has no
``dtype``. One handler often serves several callables whose orders differ (one reduction handler
for np.sum, np.max and np.var), so a handler's own parameter list cannot say what a position
means. A call is bound against the NumPy callable's signature first (a bad call gets a
TypeError, and NumPy then raises its own), and the handler receives

* the values of NumPy's positional-only parameters (a method's ``self``, ``np.reshape``'s ``a``)
  and of a ``*args`` parameter positionally, in NumPy's order;
* every other argument by NumPy's parameter name.

An argument the handler has no parameter for breaks the trace ("not supported by the tracer")
unless it is NumPy's default: a handler never sees a misplaced or a silently dropped argument.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
from numpy._core import _methods

from astcompile.trace.context import TraceBreak
from astcompile.trace.reasons import TraceReason

_P = inspect.Parameter
_KEYWORD_KINDS = (_P.POSITIONAL_OR_KEYWORD, _P.KEYWORD_ONLY)

#: ndarray methods whose ``**kwargs`` NumPy forwards to a differently named ``_methods`` function.
_METHOD_IMPLS = {"max": "_amax", "min": "_amin"}


@cache
def function_signature(func: Callable) -> inspect.Signature:
    """NumPy's signature of ``func`` (``np.var``, ``np.zeros``, ``np.linalg.norm``)."""
    return inspect.signature(func)


@cache
def method_signature(name: str) -> inspect.Signature:
    """``ndarray.<name>``'s signature, ``self`` first. Where it ends in ``**kwargs``, NumPy
    passes the call on to ``numpy._core._methods`` (``a.sum(0, None, None, True)`` is
    ``keepdims=True``): that function's further parameters are spelled out."""
    own = inspect.signature(getattr(np.ndarray, name))
    params = [p for p in own.parameters.values() if p.kind is not _P.VAR_KEYWORD]
    impl = getattr(_methods, _METHOD_IMPLS.get(name, f"_{name}"), None)
    if len(params) == len(own.parameters) or impl is None:
        return own
    have = {p.name for p in params}
    forwarded = list(inspect.signature(impl).parameters.values())[1:]
    return own.replace(parameters=params + [p for p in forwarded if p.name not in have])


@cache
def _keywords(handler: Callable) -> frozenset[str]:
    """The parameter names ``handler`` takes by keyword."""
    params = inspect.signature(handler).parameters.values()
    return frozenset(p.name for p in params if p.kind in _KEYWORD_KINDS)


def _is_default(value: Any, default: Any) -> bool:
    if value is default:
        return True
    plain = (bool, int, float, str, type(None))
    return type(value) is type(default) and isinstance(value, plain) and value == default


def _unsupported(what: str, names: Any) -> TraceBreak:
    given = ", ".join(f"{n}=" for n in names)
    return TraceBreak(TraceReason.NOT_SUPPORTED, f"{what} with {given} runs in NumPy")


def call(
    signature: inspect.Signature, handler: Callable, args: tuple, kwargs: dict, what: str
) -> Any:
    """``handler`` applied to ``args``/``kwargs`` as bound by NumPy's ``signature``."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{what}(): {exc}") from None
    accepted = _keywords(handler)
    positional: list[Any] = []
    named: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        param = signature.parameters[name]
        if param.kind is _P.POSITIONAL_ONLY:
            positional.append(value)
        elif param.kind is _P.VAR_POSITIONAL:
            positional.extend(value)
        elif param.kind is _P.VAR_KEYWORD:
            if value:
                raise _unsupported(what, value)
        elif name in accepted:
            named[name] = value
        elif not _is_default(value, param.default):
            raise _unsupported(what, [name])
    return handler(*positional, **named)


def call_function(func: Callable, handler: Callable, args: tuple, kwargs: dict) -> Any:
    """A NumPy function's handler, bound by ``func``'s signature."""
    what = f"np.{getattr(func, '__name__', func)}"
    return call(function_signature(func), handler, args, kwargs, what)


def call_method(name: str, handler: Callable, array: Any, args: tuple, kwargs: dict) -> Any:
    """An ndarray method's handler, bound by ``ndarray.<name>``'s signature."""
    return call(method_signature(name), handler, (array, *args), kwargs, f"ndarray.{name}")
