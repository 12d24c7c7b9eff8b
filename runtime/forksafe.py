"""Locks that a forked child gets back unlocked.

``fork`` copies every lock in the state it is in, held by threads that do not exist in the
child. A process that forks while another of its threads compiles (holding that region's lock,
the loader's lock for the kernel being built) would leave its child waiting forever at its first
call of the same function. Every lock the compiler keeps is made here, and
``os.register_at_fork`` replaces each with a new, unlocked one in the child.

Module-level locks are found again by module and attribute name; locks of objects (a region, a
compiled function) through a weak reference, so the registry keeps nothing alive.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

Factory = Callable[[], Any]
_modules: list[tuple[str, str, Factory]] = []
_objects: dict[int, tuple[weakref.ref, str, Factory]] = {}


def module_lock(module: str, attr: str = "_lock", factory: Factory = threading.Lock) -> Any:
    """A new lock for ``module``'s global ``attr`` (``_lock = module_lock(__name__)``)."""
    _modules.append((module, attr, factory))
    return factory()


def object_lock(obj: Any, attr: str = "_lock", factory: Factory = threading.Lock) -> Any:
    """A new lock for ``obj.attr`` (``self._lock = object_lock(self)``)."""
    ref = weakref.ref(obj, _forget)
    _objects[id(ref)] = (ref, attr, factory)
    return factory()


def _forget(ref: weakref.ref) -> None:
    _objects.pop(id(ref), None)


def _after_fork_in_child() -> None:
    for module, attr, factory in _modules:
        found = sys.modules.get(module)
        if found is not None:
            setattr(found, attr, factory())
    for ref, attr, factory in list(_objects.values()):
        obj = ref()
        if obj is not None:
            setattr(obj, attr, factory())


os.register_at_fork(after_in_child=_after_fork_in_child)
