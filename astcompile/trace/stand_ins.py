"""Stand-ins: what the trace sees in place of an object, a class, a list or a module's globals
that a region reads (see trace/reads.py, which makes them, and runtime/reads.py).

Each stand-in holds the real value, the path it was found at and the recorder; every read
through it (an attribute, an item, its length, its keys, its type) is handed to the recorder,
which records it and returns what the trace sees for the result. Writes through a stand-in are
trace breaks: the region then runs as plain Python.
"""

from __future__ import annotations

import builtins
import functools
import operator
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from astcompile.ir.shapes import is_runtime
from astcompile.runtime.reads import Path, Read, ReadKind, describe
from astcompile.trace.context import TraceBreak
from astcompile.trace.lists import SymList
from astcompile.trace.reasons import TraceReason
from astcompile.trace.refused import checked_getattr, refuse_call, refused_or_itself
from astcompile.trace.sym_numbers import SymInt, SymScalar
from astcompile.trace.symbolic import SymArray

if TYPE_CHECKING:
    from astcompile.trace.reads import ReadRecorder


class RecordingGlobals(dict):
    """The globals of a clone: every name the code looks up is seen under ``path``.

    CPython's LOAD_GLOBAL looks up a ``dict`` subclass through ``__getitem__``; a missing name
    falls back to builtins, and its absence from the module is recorded (a later global of
    that name must be seen). ``own``: the builtins the function took from its globals when it
    was made, which a later ``__builtins__ = ...`` there does not change: traced while equal."""

    def __init__(self, real: dict, recorder: ReadRecorder, path: Path, own: dict) -> None:
        super().__init__(
            __builtins__=real.get("__builtins__", builtins), __name__=real.get("__name__")
        )
        self._real, self._own, self._recorder = real, own, recorder
        self._path = path + (("gdict",),)

    def __getitem__(self, name: str) -> Any:
        try:
            value = self._real[name]
        except KeyError:
            self._recorder.record(Read(self._path + (("contains", name),), ReadKind.VALUE, False))
            return self._builtin(name)
        return self._recorder.see(self._path + (("item", name),), value)

    def _builtin(self, name: str) -> Any:
        """A name found in builtins, read there like any global: ``builtins.len`` patched
        (``mock.patch``) is what plain code calls from then on, a patch of the user's own
        traced as the user's function is. A builtin runs where the callee analysis lets the
        trace call it; ``print`` reached through a local (``log = print``) breaks when called."""
        scope, at = dict.__getitem__(self, "__builtins__"), self._path + (("item", "__builtins__"),)
        if "__builtins__" not in self._real:  # bare globals: the function's own, fixed for good
            scope, at = self._own, self._path[:-1] + (("attr", "__builtins__"),)
        module = isinstance(scope, types.ModuleType)
        if (table := vars(scope) if module else scope) is not self._own:
            raise TraceBreak(TraceReason.FOREIGN_BUILTINS, f"{name!r}: __builtins__ rebound")
        value = table[name]  # KeyError: CPython's NameError
        path = at + (("attr" if module else "item", name),)
        if value is not getattr(builtins, name, None):
            return self._recorder.see(path, value)
        self._recorder.keep(path, value)
        if name in _SEE_THROUGH:
            return functools.partial(_SEE_THROUGH[name], self._recorder)
        return value if isinstance(value, type) else refused_or_itself(value, name)

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default


def _type_of(recorder: ReadRecorder, *args: Any) -> Any:
    """``type(x)`` of a stand-in is the type of what it stands for (checked at every call)."""
    if len(args) == 1 and isinstance(args[0], ObjectRead):
        target, path, _ = _parts(args[0])
        return recorder.see(path + (("type",),), type(target))
    if len(args) == 1:
        return _python_type(args[0])
    return type(*args)


def _isinstance_of(recorder: ReadRecorder, value: Any, classinfo: Any) -> bool:
    """``isinstance(s, int)`` of a traced number answers for the number it stands for (a
    tracer object is an instance of none of the user's types)."""
    if isinstance(value, ObjectRead) or not type(value).__module__.startswith("astcompile."):
        return isinstance(value, classinfo)  # a stand-in's __class__ is read, and guarded
    return issubclass(_python_type(value), classinfo)


def _python_type(value: Any) -> type:
    """The type of the value a traced one stands for, which its guards fix: a Python number's
    own type, a NumPy scalar's, ``np.ndarray``. A value whose type only the run decides (a
    union of a Python number and its NumPy twin) or that no rule here names is a trace break,
    so the region runs as Python and asks Python."""
    if type(value) is SymArray and value.python is None:
        return value.node.dtype.type if value.is_scalar else np.ndarray
    if type(value) is SymScalar:
        return type(value.hint)
    if type(value) in (SymInt, SymList, ReadOnlyList):
        return {SymInt: int}.get(type(value), list)
    if type(value).__module__.startswith("astcompile."):
        why = "type() or isinstance() of a value whose type the trace does not fix"
        raise TraceBreak(TraceReason.VALUE_DEPENDENT_TYPE, why + "; the region runs as Python")
    return type(value)


def _refuse_identity(recorder: ReadRecorder, *args: Any) -> Any:
    if any(is_read_stand_in(a) for a in args):
        why = "id() of an object the region reads; the region runs as Python"
        raise TraceBreak(TraceReason.OBJECT_IDENTITY, why)
    return id(*args)


def _callable_of(recorder: ReadRecorder, value: Any) -> bool:
    if isinstance(value, ObjectRead):  # callable() answers for the type: guard the type
        return callable(value.__class__) and callable(_parts(value)[0])
    return callable(value)


def _has_attr(recorder: ReadRecorder, obj: Any, name: Any) -> bool:
    """``hasattr(f, "k")`` of a function the trace made a clone of: the real function's
    answer, compared at every call (its attributes may come and go)."""
    seen = recorder.function_seen(obj) if type(obj) is types.FunctionType else None
    if seen is None or type(name) is not str:
        return hasattr(obj, name)
    path, fn = seen
    return recorder.value(path + (("has", name),), hasattr(fn, name))


#: Builtins whose answer for a stand-in must be the answer for what it stands for.
def _len_of(recorder: ReadRecorder, value: Any) -> Any:
    """``len(x)`` of a traced array is its first size, symbolic like ``x.shape[0]``: a new
    length does not recompile (CPython's ``len`` would need an int, and guard the value)."""
    if isinstance(value, SymArray) and value.ndim and not is_runtime(value.node.shape[0]):
        return value.shape[0]
    if type(value) is SymList:  # a typed list (trace/lists.py): its size, symbolic too
        return value.length()
    return len(value)  # a run-time length (a window x[i:i + k]): __len__ says why it breaks


_SEE_THROUGH: dict[str, Callable[..., Any]] = {
    "len": _len_of,
    "type": _type_of,
    "isinstance": _isinstance_of,
    "id": _refuse_identity,
    "callable": _callable_of,
    "hasattr": _has_attr,
}


class ReadOnlyList(list):
    """A list the region read: its items are seen; writing it is a trace break."""

    def _write(self, *args: Any, **kwargs: Any) -> Any:
        raise TraceBreak(
            TraceReason.LIST_WRITE, "a region writes a list it read; it runs as Python"
        )

    append = extend = insert = pop = remove = sort = reverse = clear = _write
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _write


def _parts(proxy: ObjectRead) -> tuple[Any, Path, ReadRecorder]:
    get = object.__getattribute__
    return get(proxy, "_ac_target"), get(proxy, "_ac_path"), get(proxy, "_ac_recorder")


def target_of(value: Any) -> Any:
    """What ``value`` stands for (``value`` itself when it is no stand-in)."""
    return _parts(value)[0] if isinstance(value, ObjectRead) else value


class ObjectRead:
    """An object, dict or user module a region reads: each attribute or item read is seen."""

    __slots__ = ("_ac_path", "_ac_recorder", "_ac_target")

    def __init__(self, target: Any, path: Path, recorder: ReadRecorder) -> None:
        object.__setattr__(self, "_ac_target", target)
        object.__setattr__(self, "_ac_path", path)
        object.__setattr__(self, "_ac_recorder", recorder)

    def __getattribute__(self, name: str) -> Any:
        target, path, recorder = _parts(self)
        if name == "__class__":
            recorder.record(Read(path + (("type",),), ReadKind.IDENTITY, type(target)))
            return type(target)
        if type(target) is dict and name in _DICT_VIEWS:
            return _DICT_VIEWS[name].__get__(self)
        return _look_up(self, "attr", name)

    def __getitem__(self, key: Any) -> Any:
        _, path, recorder = _parts(self)
        _constant_key(key, path, recorder)
        return _look_up(self, "item", key)

    def __contains__(self, key: Any) -> bool:
        target, path, recorder = _parts(self)
        _constant_key(key, path, recorder)
        return recorder.value(path + (("contains", key),), key in target)

    def __len__(self) -> int:
        target, path, recorder = _parts(self)
        return recorder.value(path + (("len",),), len(target))

    def __bool__(self) -> bool:
        target, path, recorder = _parts(self)
        return recorder.value(path + (("bool",),), bool(target))

    def __iter__(self) -> Any:
        target, path, recorder = _parts(self)
        if type(target) is dict:
            return iter(recorder.value(path + (("keys",),), tuple(target)))
        if isinstance(target, (tuple, list)):  # a namedtuple, a list subclass: its items
            return iter(recorder.items(path, target))
        raise TraceBreak(
            TraceReason.OBJECT_ITERATION,
            f"{describe(path, recorder.names)} is iterated; the region runs as Python",
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        target, path, recorder = _parts(self)
        call = recorder.see(path + (("attr", "__call__"),), target.__call__)
        return call(*args, **kwargs)

    def __repr__(self) -> str:
        return repr(_parts(self)[0])

    def _refuse(self, *args: Any) -> Any:
        _, path, recorder = _parts(self)
        raise TraceBreak(
            TraceReason.OBJECT_WRITE,
            f"a region writes {describe(path, recorder.names)}; it runs as Python",
        )

    __setattr__ = __delattr__ = __setitem__ = __delitem__ = _refuse

    def __eq__(self, other: object) -> bool:
        return self._refuse()

    __hash__ = _refuse  # type: ignore[assignment]


#: read kind -> (the read of its absence, how to look, the errors that mean absent)
_LOOKS = {
    "attr": ("has", checked_getattr, AttributeError),
    "item": ("contains", operator.getitem, (KeyError, IndexError)),
}


def _look_up(proxy: ObjectRead, kind: str, key: Any) -> Any:
    """The attribute or item ``key`` of what ``proxy`` stands for, seen at ``path + ((kind,
    key),)``; where it is absent, the absence is read (False at every call) and the error
    goes on as in Python."""
    target, path, recorder = _parts(proxy)
    absent, look, errors = _LOOKS[kind]
    try:
        value = look(target, key)
    except errors:
        recorder.record(Read(path + ((absent, key),), ReadKind.VALUE, False))
        raise
    return recorder.see(path + ((kind, key),), value)


class CallableRead(ObjectRead):
    """A callable a region reads that is the same object at every call (an IDENTITY read), a
    compiled function say: its attributes are seen (``f.scale``), and it answers ``==``,
    ``hash`` and calls as itself."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _parts(self)[0](*args, **kwargs)

    def __eq__(self, other: object) -> bool:
        target = _parts(self)[0]
        return target is (_parts(other)[0] if isinstance(other, CallableRead) else other)

    def __hash__(self) -> int:
        return hash(_parts(self)[0])


class ClassRead(CallableRead):
    """A user's class a region reads: a callable read that answers ``isinstance`` too."""

    __slots__ = ()

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, _parts(self)[0])

    def __subclasscheck__(self, cls: Any) -> bool:
        return issubclass(cls, _parts(self)[0])


class PassedCallee(ObjectRead):
    """A callable the region read that the trace must not run (``print``, ``np.random.rand``,
    a user function with side effects or graph breaks: frontend/callees.py): seen by identity,
    and a call of it is a trace break, so the region runs as Python and calls it there. The
    break is reported at the callee's own line, where its analysis found one."""

    __slots__ = ("_ac_verdict",)

    def __init__(self, target: Any, path: Path, recorder: ReadRecorder, verdict: Any) -> None:
        super().__init__(target, path, recorder)
        object.__setattr__(self, "_ac_verdict", verdict)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _, path, recorder = _parts(self)
        refuse_call(describe(path, recorder.names), object.__getattribute__(self, "_ac_verdict"))


def _constant_key(key: Any, path: Path, recorder: ReadRecorder) -> None:
    """Only keys written in the source (constants, or tuples of them) name a fixed read."""
    if not _is_constant(key):
        raise TraceBreak(
            TraceReason.COMPUTED_KEY,
            f"{describe(path, recorder.names)}[...] with a key "
            "computed in the region runs as Python",
        )


def _is_constant(key: Any) -> bool:
    if type(key) is tuple:
        return all(_is_constant(k) for k in key)
    return type(key) in (str, int, bytes, bool, type(None))


def _dict_get(self: ObjectRead, key: Any, default: Any = None) -> Any:
    return self[key] if key in self else default  # noqa: SIM401 - this is get()


def _dict_keys(self: ObjectRead) -> tuple:
    return tuple(iter(self))


def _dict_values(self: ObjectRead) -> list:
    return [self[k] for k in iter(self)]


def _dict_items(self: ObjectRead) -> list:
    return [(k, self[k]) for k in iter(self)]


_DICT_VIEWS = {"get": _dict_get, "keys": _dict_keys, "values": _dict_values, "items": _dict_items}


def is_read_stand_in(value: Any) -> bool:
    """Whether ``value`` is a stand-in that must not leave the trace (it records into it)."""
    return isinstance(value, (ObjectRead, ReadOnlyList)) or (
        type(value) is types.FunctionType and isinstance(value.__globals__, RecordingGlobals)
    )


class ViewedBase:
    """``x.base`` of an argument that is a view: it is not None, and the trace reads nothing
    else of it (the array it views is no value the region was given)."""

    __slots__ = ("_ac_name",)

    def __init__(self, name: str) -> None:
        self._ac_name = name

    def __getattr__(self, attribute: str) -> Any:
        raise TraceBreak(
            TraceReason.UNSUPPORTED_ARGUMENT,
            f"{self._ac_name}.base.{attribute}: the array a view argument views; "
            "the region runs as Python",
        )


def argument_base(recorder: ReadRecorder, path: Path, array: Any) -> Any:
    """``x.base`` of an array read at ``path``: whether it owns its memory is compared at
    every call; a view's base is nothing the trace can use but ``is None``."""
    if recorder.value(path + (("attr", "base"), ("none",)), array.base is None):
        return None
    return ViewedBase(describe(path, recorder.names))
