"""Recording what a region reads while it is traced (the why is in runtime/reads.py).

The tracer runs the region's statements as real Python. Arrays and numbers arrive as symbolic
leaves; everything else used to arrive as itself, so ``self.s`` or ``cfg["k"]`` or a callee's
global was read once and baked into the compiled code. Now every such value is *seen* through
:meth:`ReadRecorder.see`, which records where it came from (a path) and hands the trace a
stand-in that keeps recording:

- arrays and numbers become new graph inputs, read again at every call;
- objects, dicts and user modules become read proxies whose attribute and item reads are seen
  the same way; lists and tuples become read-only copies of their seen items;
- user functions become clones whose globals and closure cells are seen (a callee's ``K``);
- strings, bools and ``None`` are kept and compared at every call; callables, classes and
  library modules are kept and checked by identity.

Writing into a Python object from a region is a trace break: the region then runs as plain
Python, so nothing a region does can make a value read at its entry stale.
"""

from __future__ import annotations

import enum
import functools
import math
import re
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from astcompile import registry
from astcompile.frontend.callees import judge
from astcompile.frontend.methods import called_object
from astcompile.ir.results import is_leaf
from astcompile.runtime import guards as G
from astcompile.runtime.reads import Path, Read, ReadKind, describe
from astcompile.trace import optionals
from astcompile.trace.callable_kinds import (
    compares_identity,
    is_compiled_user_function,
    is_user_function,
)
from astcompile.trace.context import TraceBreak
from astcompile.trace.inlined_loops import lowered_clone
from astcompile.trace.library_modules import (
    KNOWN_LIBRARIES,
    ModuleRead,
    is_library_class,
    is_library_module,
)
from astcompile.trace.numpy_module import routed, scalar_function
from astcompile.trace.reasons import TraceReason
from astcompile.trace.stand_ins import (
    CallableRead,
    ClassRead,
    ObjectRead,
    PassedCallee,
    ReadOnlyList,
    RecordingGlobals,
    argument_base,
    is_read_stand_in,
)

if TYPE_CHECKING:
    from astcompile.frontend.callees import CalleeVerdict

_MAX_ITEMS = 64  # longer lists/tuples read by a region: plain Python (one input per item)
_VALUE_TYPES = (
    str,
    bytes,
    bool,
    type(None),
    slice,
    type(Ellipsis),
    range,
    frozenset,
    np.dtype,
    enum.Enum,
)


class ReadRecorder:
    """The reads of one trace, in the order their inputs were made."""

    def __init__(
        self, make_leaf: Callable[[Any, str], Any], names: tuple[str, ...], args: tuple
    ) -> None:
        self.make_leaf = make_leaf
        self.names = tuple(names)
        self.reads: list[Read] = []
        self.sizes: dict[int, int] = {}
        G.call_key(tuple(args), self.sizes)  # size classes continue from the arguments'
        self._seen: dict[Path, Any] = {}
        #: the value found at each path, as the trace read it: the first call binds these
        #: instead of reading again (a user's ``__getattr__`` runs as often as in Python)
        self.observed: dict[Path, Any] = {}
        # id -> (first path, stand-in, the value itself: kept alive, so its id is not reused)
        self._objects: dict[int, tuple[Path, Any, Any]] = {}

    def note_argument(self, path: Path, value: Any, symbolic: Any) -> None:
        """An argument leaf or object the trace already has: later reads of it are SAME."""
        self._objects.setdefault(id(value), (path, symbolic, value))
        if type(value) is np.ndarray and symbolic.origin is None:  # what ``x.base`` asks
            symbolic.origin = functools.partial(argument_base, self, path, value)

    def record(self, read: Read) -> None:
        self.reads.append(read)
        if read.kind in (ReadKind.VALUE, ReadKind.IDENTITY):
            self.observed.setdefault(read.path, read.expected)

    def value(self, path: Path, value: Any) -> Any:
        """``value``, which the trace specialises on: compared at every call."""
        self.record(Read(path, ReadKind.VALUE, value))
        return value

    def items(self, path: Path, sequence: Any) -> list:
        """The seen items of a list or tuple, its length compared at every call."""
        if len(sequence) > _MAX_ITEMS:
            raise TraceBreak(
                TraceReason.LARGE_CONTAINER,
                f"{describe(path, self.names)} holds "
                f"{len(sequence)} items; the region runs as Python",
            )
        self.value(path + (("len",),), len(sequence))
        return [self.see(path + (("item", i),), v) for i, v in enumerate(sequence)]

    def see(self, path: Path, value: Any) -> Any:
        """What the trace sees for ``value`` found at ``path``, with the read recorded."""
        if path in self._seen:
            return self._seen[path]
        self.observed.setdefault(path, value)
        known = self._objects.get(id(value))
        if (
            known is not None
            and not isinstance(value, _VALUE_TYPES)
            and type(value) not in (int, float, complex)
        ):
            self.record(Read(path, ReadKind.SAME, known[0]))
            self._seen[path] = known[1]
            return known[1]
        refused = _refusal(value)
        if refused is not None:
            seen = _refused(self, path, value, refused)
        else:
            seen = next(handler for applies, handler in _RULES if applies(value))(self, path, value)
        self._seen[path] = seen
        return seen

    def keep(self, path: Path, value: Any) -> Any:
        """``value`` as it is, checked by identity at every call."""
        if path not in self._seen:
            self.record(Read(path, ReadKind.IDENTITY, value))
            self._seen[path] = value
        return self._seen[path]

    def stands_for(self, fn: types.FunctionType, stand_in: Any, path: Path) -> Any:
        """``stand_in`` (a clone made from ``fn`` or its rewrite, or a caller of such a clone:
        trace/optionals.py) is what the trace sees for ``fn``."""
        self._objects[id(fn)] = self._objects[id(stand_in)] = (path, stand_in, fn)
        return stand_in

    def function_seen(self, clone: Any) -> tuple[Path, Any] | None:
        """(path, the real function) of a clone this trace made, else None."""
        known = self._objects.get(id(clone))
        return (known[0], known[2]) if known is not None and known[1] is clone else None

    def leaf_name(self, path: Path) -> str:
        return re.sub(r"\W+", "_", describe(path, self.names)).strip("_") or "read"

    def function(
        self, fn: types.FunctionType, path: Path, cell_index: dict[str, int] | None = None
    ) -> types.FunctionType:
        """A clone of ``fn`` whose global and closure reads are seen under ``path``.

        ``cell_index`` maps a free variable to its cell's index in the function at ``path``
        where the clone's code is not that function's own (a region body built from the user's
        function); -1 marks a cell of the compiler's own, passed as it is."""
        if compares_identity(fn):
            raise TraceBreak(
                TraceReason.IDENTITY_COMPARISON,
                f"{fn.__qualname__} compares objects with 'is'; a region that does runs as Python",
            )
        free = fn.__code__.co_freevars
        new_cells = tuple(types.CellType() for _ in free)
        clone = types.FunctionType(
            fn.__code__,
            RecordingGlobals(fn.__globals__, self, path, fn.__builtins__),
            fn.__name__,
            None,
            new_cells or None,
        )
        self._objects[id(fn)] = (path, clone, fn)  # before the cells: it may refer to itself
        self._objects[id(clone)] = (path, clone, fn)  # hasattr(clone, k) asks fn (stand_ins)
        clone.__qualname__, clone.__module__ = fn.__qualname__, fn.__module__
        clone.__dict__.update(fn.__dict__)
        if fn.__defaults__:
            clone.__defaults__ = tuple(self.see(path + (("defaults",),), fn.__defaults__))
        if fn.__kwdefaults__:
            kw = path + (("kwdefaults",),)
            clone.__kwdefaults__ = {
                k: self.see(kw + (("item", k),), v) for k, v in fn.__kwdefaults__.items()
            }
        for i, (name, cell) in enumerate(zip(free, fn.__closure__ or ())):
            index = free.index(name) if cell_index is None else cell_index[name]
            try:
                contents = cell.cell_contents
            except ValueError:  # not bound yet: reading it raises NameError, as in Python
                continue
            new_cells[i].cell_contents = (
                contents if index < 0 else self.see(path + (("cell", index, name),), contents)
            )
        return clone


def _value(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    if isinstance(value, frozenset):  # equal ones may iterate in other orders: a loop's order
        recorder.value(path + (("keys",),), tuple(value))
    return recorder.value(path, value)


def _input(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    key = G.value_key(value, recorder.sizes)
    recorder.record(Read(path, ReadKind.INPUT, key))
    leaf = recorder.make_leaf(value, recorder.leaf_name(path))
    if type(value) is np.ndarray:
        recorder.note_argument(path, value, leaf)
    return leaf


def _identity(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    recorder.record(Read(path, ReadKind.IDENTITY, value))
    return value


def _sequence(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    items = recorder.items(path, value)
    return tuple(items) if type(value) is tuple else ReadOnlyList(items)


def _user_function(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    """A user's function the trace may call or read: the same object, running the same code
    (``f.__code__`` may be swapped), with its attributes (``f.scale``) seen at every call."""
    recorder.record(Read(path, ReadKind.IDENTITY, value))
    recorder.record(Read(path + (("code",),), ReadKind.IDENTITY, value.__code__))
    rewrite = judge(value).rewrite  # loops: the rewrite runs them natively
    if rewrite is None:
        clone = recorder.function(value, path)
    else:
        clone = lowered_clone(recorder, path, value, rewrite)
    for name, attribute in value.__dict__.items():  # one added later: see stand_ins._has_attr
        clone.__dict__[name] = recorder.see(path + (("attr", name),), attribute)
    return recorder.stands_for(value, optionals.refusing(clone, value), path)


def _method(recorder: ReadRecorder, path: Path, value: types.MethodType) -> Any:
    func = value.__func__
    if not (is_user_function(func) or registry.is_compiled(func)):  # a library's: hidden state
        return _builtin_method(recorder, path, value)
    func = recorder.see(path + (("func",),), value.__func__)
    owner = recorder.see(path + (("self",),), value.__self__)
    return types.MethodType(func, owner)


def _compiled(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    """A compiled function (``self.h = astcompile.compile(h)``, a ``__call__`` compiled in its
    class) that the callee analysis lets the trace inline: the same compiled function at every
    call, and its function's body traced like any user function's."""
    recorder.record(Read(path, ReadKind.IDENTITY, value))
    return recorder.see(path + (("attr", "__wrapped__"),), value.__wrapped__)


def _partial(recorder: ReadRecorder, path: Path, value: functools.partial) -> Any:
    """A partial of the user's function: rebuilt from the seen function and arguments, so what
    the function reads is seen too."""
    func = recorder.see(path + (("attr", "func"),), value.func)
    args = recorder.items(path + (("attr", "args"),), value.args)
    keywords = {
        k: recorder.see(path + (("attr", "keywords"), ("item", k)), v)
        for k, v in value.keywords.items()
    }
    return functools.partial(func, *args, **keywords)


def _builtin_method(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    owner = value.__self__
    if owner is None or isinstance(owner, (types.ModuleType, type)) or is_library_module(owner):
        return _identity(recorder, path, value)
    raise TraceBreak(
        TraceReason.OBJECT_METHOD,
        f"{describe(path, recorder.names)} reads state the region cannot follow; it runs as Python",
    )


def _refusal(value: Any) -> CalleeVerdict | None:
    """Why the trace may not call ``value``, a callable the region read (an argument, an
    attribute, an item, a global or a cell of a callee), or None when it may: the verdict of
    the one callee analysis (frontend/callees.py), which a call by name gets too. A callable
    object of the user's is read like any object: its ``__call__`` is judged when called."""
    if isinstance(value, type) or not callable(value) or is_read_stand_in(value):
        return None

    if type(value) is not functools.partial and not registry.is_compiled(value):
        called = called_object(value)
        if called is not None and is_user_function(called):
            return None
    verdict = judge(value)
    return None if verdict.traceable else verdict


def _refused(recorder: ReadRecorder, path: Path, value: Any, verdict: CalleeVerdict) -> Any:
    recorder.record(Read(path, ReadKind.IDENTITY, value))
    stand_in = PassedCallee(value, path, recorder, verdict)
    recorder.note_argument(path, value, stand_in)
    return stand_in


def _mutable(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    raise TraceBreak(
        TraceReason.MUTABLE_CONTAINER,
        f"{describe(path, recorder.names)} is a {type(value).__name__}; the region runs as Python",
    )


def _proxy(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    proxy = ObjectRead(value, path, recorder)
    recorder.note_argument(path, value, proxy)
    return proxy


def _subclass(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    raise TraceBreak(
        TraceReason.UNSUPPORTED_ARGUMENT,
        f"{describe(path, recorder.names)} is a {type(value).__name__}",
    )


def _user_class(recorder: ReadRecorder, path: Path, value: type) -> Any:
    """A class of the user's: the same class at every call, and its attributes (``cls.k``,
    ``Model.EPS``) read at every call like an object's."""
    return _identified(recorder, path, value, ClassRead)


def _compiled_function(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    """A compiled function (``@astcompile.compile`` on the function that reads ``f.scale``):
    called as it is, its attributes read at every call."""
    return _identified(recorder, path, value, CallableRead)


def _identified(recorder: ReadRecorder, path: Path, value: Any, kind: type) -> Any:
    recorder.record(Read(path, ReadKind.IDENTITY, value))
    proxy = kind(value, path, recorder)
    recorder.note_argument(path, value, proxy)
    return proxy


def _math_function(recorder: ReadRecorder, path: Path, value: Any) -> Any:
    return routed(math, _identity(recorder, path, value), value)


def _module(recorder: ReadRecorder, path: Path, value: types.ModuleType) -> Any:
    """A module is read like an object, so ``cfg.SCALE`` is seen at every call; a library's
    keeps its functions and classes by identity (trace/library_modules.py)."""
    if is_library_module(value):
        return _identified(recorder, path, value, ModuleRead)
    return _proxy(recorder, path, value)


def _is_library_callable(value: Any) -> bool:
    """Functions and callable objects of libraries (ufuncs, builtins, NumPy's Python
    functions, compiled functions): the trace calls them as they are, guarded by identity."""
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
        return True  # a library function or a compiled function (user functions came first)
    module = getattr(type(value), "__module__", "") or ""
    return callable(value) and module.split(".")[0] in KNOWN_LIBRARIES


#: What the trace sees for a value read by a region: the first rule that applies decides.
_RULES: tuple[tuple[Callable[[Any], bool], Callable[[ReadRecorder, Path, Any], Any]], ...] = (
    (lambda v: isinstance(v, _VALUE_TYPES) or v is NotImplemented, _value),
    (lambda v: type(v) is np.ndarray or (is_leaf(v) and not isinstance(v, np.ndarray)), _input),
    (lambda v: isinstance(v, np.ndarray), _subclass),
    (lambda v: type(v) in (tuple, list), _sequence),
    (is_user_function, _user_function),
    (lambda v: type(v) is types.MethodType, _method),  # a compiled one's function: below
    (is_compiled_user_function, _compiled),
    (registry.is_compiled, _compiled_function),
    (lambda v: type(v) is functools.partial, _partial),
    (scalar_function, _math_function),  # ``from math import erf``: traced like math.erf
    (lambda v: isinstance(v, types.BuiltinMethodType), _builtin_method),
    (lambda v: isinstance(v, (set, bytearray)), _mutable),
    (lambda v: isinstance(v, types.ModuleType), _module),
    (lambda v: isinstance(v, type) and not is_library_class(v), _user_class),
    (lambda v: isinstance(v, type) or type(v) is object or _is_library_callable(v), _identity),
    (lambda v: True, _proxy),
)


__all__ = ["ReadRecorder", "is_read_stand_in"]
