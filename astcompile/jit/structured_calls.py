"""The helpers that lowered region bodies call (``__ac_for``, ``__ac_if``, ...), bound lazily.

They live in the tracer (trace/loops.py, trace/control.py, trace/scalars.py), which a warm
process that loads compiled entries never needs: binding them on first call keeps
``import astcompile`` and a warm start from importing the tracer.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from astcompile.frontend.spec import UNBOUND, UNBOUND_NAME, UNSEEN, UNSEEN_NAME

_TARGETS = {
    "__ac_for": ("astcompile.trace.loops", "ac_for"),
    "__ac_if": ("astcompile.trace.loops", "ac_if"),
    "__ac_create": ("astcompile.trace.loops", "ac_create"),
    "__ac_while": ("astcompile.trace.loops", "ac_while"),
    "__ac_ndindex": ("astcompile.trace.loops", "ac_ndindex"),
    "__ac_len": ("astcompile.trace.trip_counts", "ac_len"),
    "__ac_iter": ("astcompile.trace.iteration", "ac_iter"),
    "__ac_scalar": ("astcompile.trace.scalars", "ac_scalar"),
    "__ac_item": ("astcompile.trace.scalars", "ac_item"),
    "__ac_and": ("astcompile.trace.control", "ac_and"),
    "__ac_or": ("astcompile.trace.control", "ac_or"),
    "__ac_not": ("astcompile.trace.control", "ac_not"),
    "__ac_is_none": ("astcompile.trace.optionals", "ac_is_none"),
    "__ac_assert": ("astcompile.trace.control", "ac_assert"),
    "__ac_raise_if": ("astcompile.trace.control", "ac_raise_if"),
    "__ac_builtin": ("astcompile.trace.control", "ac_builtin"),
}


def _bound_on_first_call(module: str, attr: str) -> Callable[..., Any]:
    target: Callable[..., Any] | None = None

    def call(*args: Any, **kwargs: Any) -> Any:
        nonlocal target
        if target is None:
            target = getattr(importlib.import_module(module), attr)
        return target(*args, **kwargs)

    call.__name__ = call.__qualname__ = attr
    return call


#: Names region bodies with lowered loops call (see astcompile/frontend/lowering.py).
STRUCTURED_CALLS: dict[str, Any] = {
    name: _bound_on_first_call(module, attr) for name, (module, attr) in _TARGETS.items()
}
STRUCTURED_CALLS[UNBOUND_NAME] = UNBOUND  # a value, not a call: see frontend/spec.py
STRUCTURED_CALLS[UNSEEN_NAME] = UNSEEN
