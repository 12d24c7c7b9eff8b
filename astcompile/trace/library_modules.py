"""Library modules as traced code sees them: every attribute read is a read of its own.

A library module (NumPy, ``math``, an installed package, a module made with
``types.ModuleType``) used to be taken by identity and its attributes read once, while tracing:
``cfg.SCALE`` of a file-less module or ``mypkg.K`` of a package installed with pip never
changed after the first call, and neither did ``np.float_ = np.float32`` or
``mock.patch.object(np, "sum", fake)``. Now the module stands behind a :class:`ModuleRead`, so
``np.sum`` is a read at path ``np.sum``:

- numbers and arrays are inputs, strings, bools and ``None`` compared values, containers and
  the user's objects seen item by item (``recorder.see``, as any read);
- functions, classes, ufuncs and the library's own objects (``np.s_``, ``np.random.rand``
  bound to NumPy's hidden random state) are kept as they are, checked by identity: a rebound
  one is a miss.

On the C-level call path each such read is one dictionary look-up in the module's
``__dict__`` and a pointer compare (``runtime/fastcall_reads.global_reads``). NumPy's creation
functions go to the tracer (``numpy_module.Routed``).
"""

from __future__ import annotations

import functools
import os
import sys
import types
from typing import TYPE_CHECKING, Any

import numpy as np

from astcompile import registry
from astcompile.frontend.callee_rules import _LIBRARY_DIRS
from astcompile.runtime.reads import Path, Read, ReadKind
from astcompile.trace.callable_kinds import is_user_function
from astcompile.trace.numpy_module import Routed, routed
from astcompile.trace.refused import Refused, refused_or_itself
from astcompile.trace.stand_ins import ObjectRead, PassedCallee, _parts

if TYPE_CHECKING:
    from astcompile.trace.reads import ReadRecorder

#: Values of a library module that are seen like any read (not kept by identity).
_SEEN_TYPES = (
    dict,
    list,
    tuple,
    types.SimpleNamespace,
    types.ModuleType,
    types.FunctionType,
    functools.partial,
    type,
    np.ndarray,
    np.generic,
    int,
    float,
    complex,
    str,
    bytes,
    type(None),
)


def kept_by_identity(value: Any) -> bool:
    """Builtin functions and methods, and instances of a library's own classes that are not
    callable (``np.s_``): their state is the library's, which the trace does not follow. A
    callable object (``np.sum``, a ``MagicMock`` patched in its place) is seen like any read:
    NumPy's are kept by identity there, an unknown one is a trace break when called."""
    if isinstance(value, types.BuiltinFunctionType):
        return True
    if isinstance(value, types.MethodType):  # ``np.random.rand``: of NumPy's RandomState
        return not is_user_function(value.__func__)
    if isinstance(value, _SEEN_TYPES) or registry.is_compiled(value):
        return False
    return is_library_class(type(value)) and not callable(value)


KNOWN_LIBRARIES = frozenset(
    ("numpy", "math", "cmath", "operator", "functools", "itertools", "builtins", "astcompile")
)


def is_library_module(module: Any) -> bool:
    """NumPy and friends, installed packages, the standard library, modules with no file."""
    if not isinstance(module, types.ModuleType):
        return False
    if module.__name__.split(".")[0] in KNOWN_LIBRARIES or not getattr(module, "__file__", None):
        return True

    return os.path.realpath(module.__file__).startswith(_LIBRARY_DIRS)


def is_library_class(cls: type) -> bool:
    module = sys.modules.get(cls.__module__ or "")
    return module is None or is_library_module(module)


class ModuleRead(ObjectRead):
    """A library module a region reads: each attribute is seen under the module's path."""

    __slots__ = ()

    def __getattribute__(self, name: str) -> Any:
        module, path, recorder = _parts(self)
        if name == "__class__":
            return ObjectRead.__getattribute__(self, name)
        return attribute(recorder, module, path, name)


def attribute(recorder: ReadRecorder, module: types.ModuleType, path: Path, name: str) -> Any:
    """``module.name`` as the trace sees it, with the read recorded (its absence too)."""
    try:
        value = getattr(module, name)
    except AttributeError:
        recorder.record(Read(path + (("has", name),), ReadKind.VALUE, False))
        raise
    step = path + (("attr", name),)
    if kept_by_identity(value):  # refused where a call by name would be: ``r = np.random``
        seen = refused_or_itself(recorder.keep(step, value), f"{module.__name__}.{name}")
    else:
        seen = recorder.see(step, value)
    return routed(module, value, seen)


def untraced(value: Any) -> Any:
    """What a value that leaves a region is to the user: the module, NumPy's own function."""
    if isinstance(value, (ModuleRead, PassedCallee)):
        return _parts(value)[0]
    if isinstance(value, Refused):
        return value.__wrapped__
    return value.real if isinstance(value, Routed) else value
