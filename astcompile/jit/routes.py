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
never built here: a region's many compiled calls or the first choice of the plain path build it
in the background (``runtime/fastcall.py``). A function made before it was loaded cannot become
a Switch (a Python object's layout is not a Switch's), so it gets one as its *stand-in*: a
Switch holding its region and tier, whose bound route gets the function itself (what runs in
Python runs on the function), and called as its class's ``__call__`` (a staticmethod: 15-30
ns more than a Switch called directly, against 300-700 ns for the Python ``__call__``). It takes
it when the load is told, or on its next change of path (:func:`take_c_path`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile import config
from astcompile.jit import sole_region
from astcompile.jit.freshness import with_defaults
from astcompile.jit.warn_twin import plain_of
from astcompile.runtime import fastcall

if TYPE_CHECKING:
    from astcompile.jit.function import CompiledFunction
    from astcompile.jit.regions import Region

_routed: dict[tuple[type, type], type] = {}  # (class, Switch) -> the routed class
_prepared: set[type] = set()  # the Switch types whose module knows what sole calls read
#: Functions made while the extension was not loaded: they take it when it is (take_c_path).
_unrouted: weakref.WeakKeyDictionary[Any, type] = weakref.WeakKeyDictionary()  # -> its base
_standing_in = threading.Lock()  # one stand-in per function, whichever threads change its path


def new(cls: type, base: type) -> Any:
    """A new instance of ``cls`` (``base``'s ``__new__``): routed where the extension is
    loaded, else a Python object that takes a stand-in once it is."""
    routed = routed_class(cls, base)
    if routed is not None:
        return routed.__new__(routed)
    made = object.__new__(cls)
    if not fastcall.tried():
        _unrouted[made] = base
        fastcall.when_loaded(_take_c_paths)
    return made


def take_c_path(owner: CompiledFunction, base: type) -> None:
    """``owner``, made before the extension was loaded, where it is loaded now: its stand-in, a
    Switch whose bound route gets ``owner`` (what runs in Python runs on ``owner`` itself),
    becomes its class's ``__call__``. Called where ``owner`` changes path (with its tier's
    lock held, or from the thread of the call that changes it), before it changes."""
    if owner in _unrouted:
        with _standing_in:
            if owner in _unrouted:
                _stand_in(owner, base)


def _stand_in(owner: CompiledFunction, base: type) -> None:
    cls = owner._measured_class
    routed = routed_class(cls, base)  # the sole calls' context given to the extension
    switch = fastcall.switch_type()
    if routed is None or switch is None:
        return
    _unrouted.pop(owner, None)
    stand_in = switch()
    stand_in._tier = owner._tier
    stand_in._sole_region = owner.__dict__.pop("_sole_region", None)
    measured = cls.__call__
    finish = sole_region.finish if measured is base.__call__ else None
    switch.route(stand_in, measured, True, None, finish, owner)
    body: dict[str, Any] = {"__call__": staticmethod(stand_in), "__slots__": ()}
    body["_sole_region"] = property(lambda _: stand_in._sole_region, _region_setter(stand_in))
    if finish is not None and cls._sole_call is base._sole_call:  # samples time C
        body["_sole_call"] = staticmethod(stand_in.compiled_call)
    body |= {"pickled_as": cls, "__module__": cls.__module__, "__qualname__": cls.__qualname__}
    owner._measured_class, owner._plain_class = type(cls.__name__, (cls,), body), None


def _region_setter(stand_in: Any) -> Callable[[Any, Region | None], None]:
    """``owner._sole_region = ...``: held by the stand-in alone, whose calls read it in C."""

    def put(_: Any, sole: Region | None) -> None:
        stand_in._sole_region = sole

    return put


def _take_c_paths() -> None:
    """The extension is loaded: every function made before it takes its stand-in at once, on
    the path it runs (on the class before, a plain one kept its region where the stand-in's
    calls never read it), and measures again (its compiled path is cheaper now)."""
    for owner in list(_unrouted):
        tier = owner.__dict__.get("_tier")  # None: being made, its __init__ takes it
        if tier is None:
            continue
        with tier.lock:  # what changes its path holds it (jit/tiering.py)
            if type(owner) is owner._plain_class:  # each takes its stand-in first
                owner.run_plain()
            else:  # measured, or waiting for its compiled code (jit/waiting.py): measured
                owner.run_measured()
        owner.compare_again(cheaper=True)


def move(owner: CompiledFunction, cls: type) -> None:
    """``owner`` onto ``cls``, one of its paths' classes. On a class of its stand-in, a region
    set on it while it was still on its class before (``reset`` from another thread, or on
    the plain path as the extension loaded) is the stand-in's, not a shadow in ``__dict__``
    its calls never read."""
    owner.__class__ = cls
    if "_sole_region" in owner.__dict__ and isinstance(
        getattr(type(owner), "_sole_region", None), property
    ):
        owner._sole_region = owner.__dict__.pop("_sole_region")


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
            self.waiting = None  # as CompiledFunction.run_measured
            switch.route(self, measured, True, None, finish)

        body = {"run_plain": run_plain, "run_measured": run_measured, "pickled_as": cls}
        if finish is not None and cls._sole_call is base._sole_call:  # samples time C
            body["_sole_call"] = switch.compiled_call
        body |= {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        routed = _routed.setdefault((cls, switch), type(cls.__name__, (switch, cls), body))
    return routed


def plain_twin(owner: CompiledFunction) -> Callable | None:
    """The twin of ``owner.fn`` as it is now, with its defaults (None where it has none),
    made once per code object and set of names calling ``owner``; else its warn twin
    (jit/warn_twin.py), whose ``warn(..., stacklevel=3)`` counts the user's frames only when a
    compiled function's body calls it (the user's function named our frames there)."""
    from astcompile.frontend import self_calls

    fn = owner.fn
    code, names = getattr(fn, "__code__", None), self_calls.names_of(fn, owner)
    made = owner.twin_of
    if made is None or made[0] is not code or made[1] != names:
        twin = self_calls.plain_twin(fn, owner) if names else None
        made = owner.twin_of = (code, names, twin)
    twin = made[2]
    if twin is None:
        warn_twin = plain_of(fn)
        return None if warn_twin is fn else warn_twin
    return with_defaults(fn, twin)
