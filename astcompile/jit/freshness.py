"""Whether a compiled function's rewrite still describes the function it was made from.

A rewrite is made once, from the function's code and from what the names in its body (and in
its callees') resolved to. Both can change under a live function object: IPython's
``%autoreload`` assigns ``f.__code__`` (of the function, or of a callee), a module rebinds a
callee, ``f.__defaults__`` is rebound. ``CompiledFunction`` asks :class:`Freshness` before
running its rewrite and before tracing a region, and builds again where the answer is no.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from astcompile import logs


class Freshness:
    """What one build of a compiled function was made from."""

    __slots__ = ("code", "lookups")

    def __init__(self, fn: Any) -> None:
        self.built(fn)

    def built(self, fn: Any, lookups: tuple = ()) -> None:
        """A build from ``fn`` as it is now, whose analysis resolved ``lookups``."""
        self.code = getattr(fn, "__code__", None)
        self.lookups = lookups  # (path, dotted name, fingerprint): frontend/rewrite_cache.py

    def swapped(self, fn: Any) -> bool:
        """Whether ``fn`` runs other code than the build was made from."""
        return getattr(fn, "__code__", None) is not self.code

    def analysis_changed(self, fn: Callable, name: str) -> bool:
        """Whether a name the analysis resolved now means another function, or one that runs
        other code: tracing would inline what nobody analysed (a ``print`` in it would run
        once, at the trace)."""
        from astcompile.frontend.rewrite_cache import stale_reason

        why = stale_reason(fn, self.lookups) if self.lookups else None
        if why is not None:
            logs.recompiles.info("%s: %s; it is analysed again", name, why)
            self.lookups = ()
        return why is not None


def with_defaults(fn: Any, impl: Any) -> Any:
    """``impl`` (the rewrite of ``fn``) with ``fn``'s defaults as they are now."""
    if impl.__defaults__ is not fn.__defaults__:
        impl.__defaults__ = fn.__defaults__
    if impl.__kwdefaults__ is not fn.__kwdefaults__:
        impl.__kwdefaults__ = fn.__kwdefaults__
    return impl
