"""How a compiled function's calls reach the path measuring chose, at C speed where it can.

A compiled function on the plain path must cost nothing over calling the user's function. As a
Python object it cannot: its class's ``__call__`` (the user's function, as a staticmethod) still
costs a tuple per call, a dict per keyword call and, called as a method, a Python ``__get__``.
So where the C-level call path is loaded (``runtime/fastcall.py``), a compiled function is made
as an instance of its class on ``Switch`` (``runtime/fastcall_switch.c``): a call goes through
vectorcall to its *route*, the class's ``__call__`` with the instance first while measuring or
the user's function alone on the plain path, and it binds as a method the way a function does.
Changing paths sets the route; the class never changes. The plain route of a function that
calls itself by its name is its twin (``frontend/self_calls.py``), so that its recursion runs
as the plain program's does, without our object between two levels; the route watches the
user's function and calls it instead once its code or defaults are not the twin's any more.

The extension is looked for in the cache once per process when the first function is made,
never built here: the first choice of the plain path builds it in the background
(``CompiledFunction.settle``), for the functions made after it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile import config
from astcompile.jit import sole_region
from astcompile.jit.freshness import with_defaults
from astcompile.runtime import fastcall

if TYPE_CHECKING:
    from astcompile.jit.function import CompiledFunction

_routed: dict[tuple[type, type], type] = {}  # (class, Switch) -> the routed class
_prepared: set[type] = set()  # the Switch types whose module knows what sole calls read


def routed_class(cls: type, base: type) -> type | None:
    """``cls`` on ``fastcall.Switch``, None where the extension is not loaded (the instance is
    then ``cls`` itself, which changes paths by switching classes). ``base`` is
    ``CompiledFunction``, whose ``__call__`` and ``_sole_call`` a one-region function's calls
    run in C (a subclass with a ``__call__`` of its own runs that); passed in, so that this
    module does not import the class that imports it."""
    if not fastcall.tried():
        fastcall.extension(config.cache_dir, build_it=False)
    switch = fastcall.switch_type()
    if switch is None or issubclass(cls, switch):
        return None
    routed = _routed.get((cls, switch))
    if routed is None:
        measured = cls.__call__
        finish = sole_region.finish if measured is base.__call__ else None  # fastcall_sole.c
        if switch not in _prepared:  # once per extension loaded
            sole_region.in_c(fastcall.loaded(), base._compiled_call)
            _prepared.add(switch)

        def run_plain(self: Any) -> None:  # through the type: ``fn`` may carry a ``route``
            twin = plain_twin(self)
            switch.route(self, twin or self.fn, False, None if twin is None else self.fn)

        def run_measured(self: Any) -> None:
            switch.route(self, measured, True, None, finish)

        body = {"run_plain": run_plain, "run_measured": run_measured, "pickled_as": cls}
        if finish is not None and cls._sole_call is base._sole_call:  # samples time C
            body["_sole_call"] = switch.compiled_call
        body |= {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        routed = _routed.setdefault((cls, switch), type(cls.__name__, (switch, cls), body))
    return routed


def plain_twin(owner: CompiledFunction) -> Callable | None:
    """The twin of ``owner.fn`` as it is now, with its defaults (None where it has none),
    made once per code object and set of names calling ``owner``."""
    from astcompile.frontend import self_calls

    fn = owner.fn
    code, names = getattr(fn, "__code__", None), self_calls.names_of(fn, owner)
    made = owner.twin_of
    if made is None or made[0] is not code or made[1] != names:
        twin = self_calls.plain_twin(fn, owner) if names else None
        made = owner.twin_of = (code, names, twin)
    twin = made[2]
    return None if twin is None else with_defaults(fn, twin)
