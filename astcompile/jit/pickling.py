"""Pickling compiled functions: by reference where the module holds them, else by value.

A compiled function defined at module level (``@compile def f``) pickles like a Numba
dispatcher: as ``module.qualname``, which the unpickling process imports, so it gets that
process's own compiled function and its compiled entries (built once per machine through the
on-disk cache, which is safe under many processes: :mod:`astcompile.runtime.cache`).

A closure, a function compiled under another name (``g = compile(f)``) or one defined in
``__main__`` (which a worker process does not have) pickles by value: the plain function,
through cloudpickle when it is installed (``dask.distributed`` ships it; plain pickle handles
only importable functions), its source and those of the helpers it reaches by value (the
receiving process may have no file to read them from: ``frontend/pickled_sources.py``), and the
compile options. The unpickling process compiles it again;
equal payloads unpickle to one compiled function per process (:data:`_rebuilt`), so a Dask
worker that receives the same closure with every task traces and loads it once.

A bound method needs nothing here: Python pickles it as ``getattr(instance, name)``, and the
class attribute is the compiled function.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
import types
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astcompile.jit.function import CompiledFunction

#: The compile options a compiled function is rebuilt with, by attribute name.
OPTIONS = ("fullgraph", "backend_name", "dynamic", "mode", "all_eager", "signatures")
#: How many functions rebuilt from values a process keeps (least recently used dropped).
REBUILT_LIMIT = 256

_rebuilt: OrderedDict[bytes, CompiledFunction] = OrderedDict()
_lock = threading.Lock()


def reduce(compiled: CompiledFunction) -> str | tuple:
    """``__reduce__`` of a compiled function: its qualified name when importing its module
    gives back this very object, else :func:`rebuild` with its plain function and options."""
    from astcompile.frontend import pickled_sources as carried

    if carried.by_reference(compiled):
        return compiled.__qualname__
    options = tuple(getattr(compiled, o) for o in OPTIONS)
    kind = type(compiled)  # a class made at run time (jit/function.py) names the one it stands for
    pickled_as = kind.__dict__.get("pickled_as", kind)
    return rebuild, (pickled_as, _dump(compiled.fn), options, _sources(compiled.fn))


def _sources(fn: Any) -> tuple:
    """The sources the receiving process compiles from (``frontend/pickled_sources.py``): it may have
    no file to read them from."""
    from astcompile.frontend import pickled_sources as carried

    return carried.records(fn) if isinstance(fn, types.FunctionType) else ()


def _dump(fn: Any) -> bytes:
    """The plain function's bytes: cloudpickle (by value) when installed, else pickle."""
    try:
        import cloudpickle
    except ImportError:
        try:
            return pickle.dumps(fn)
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise pickle.PicklingError(
                f"cannot pickle the compiled function {fn.__qualname__}: it is not importable "
                f"by name (a closure, or defined in __main__) and {exc}. Install cloudpickle "
                "(dask.distributed ships it) to pickle it by value, or define it at module level."
            ) from exc
    return cloudpickle.dumps(fn)


def rebuild(
    kind: type[CompiledFunction], payload: bytes, options: tuple, sources: tuple = ()
) -> CompiledFunction:
    """The compiled function pickled by value: one per distinct payload in this process.
    ``kind`` is its class, pickled by name (this module does not import it: it is imported
    by it); ``sources`` are the sources it and its helpers were read from, which become
    theirs here where they compile to the unpickled code."""
    key = hashlib.sha256(payload + repr(options).encode()).digest()
    with _lock:
        found = _rebuilt.get(key)
        if found is not None:
            _rebuilt.move_to_end(key)
            return found
    fn = pickle.loads(payload)  # what the caller is unpickling already: no new trust
    if sources:
        from astcompile.frontend import pickled_sources as carried

        carried.register(fn, sources)
    fullgraph, backend, dynamic, mode, all_eager, signatures = options
    compiled = kind(
        fn,
        fullgraph=fullgraph,
        backend=backend,
        dynamic=dynamic,
        mode=mode,
        all_eager=all_eager,
        signatures=signatures,
    )
    with _lock:
        compiled = _rebuilt.setdefault(key, compiled)
        while len(_rebuilt) > REBUILT_LIMIT:
            _rebuilt.popitem(last=False)
    return compiled


def calling(base: type, call: Callable[..., Any]) -> type:
    """A subclass of ``base`` (a function's measured class) whose ``__call__`` is ``call``, as
    a staticmethod, so no Python frame of ours runs before it: the plain path's and the
    waiting path's class where the C-level call path is not loaded. It pickles as ``base``
    does (``pickled_as``: a stand-in's class where one was made, jit/routes.py)."""
    body = {"__call__": staticmethod(call), "__slots__": ()}
    body["pickled_as"] = base.__dict__.get("pickled_as", base)
    cls = type(base.__name__, (base,), body)
    cls.__qualname__, cls.__module__ = base.__qualname__, base.__module__
    return cls
