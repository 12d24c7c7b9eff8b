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
import time
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


#: Seconds a fork waits at most for another thread's import to end (one that waits for the
#: forking thread, mid-import itself, never ends).
IMPORT_WAIT = 5.0


def _imports_settled() -> None:
    """Before a fork: wait while another thread imports a module. A child forked meanwhile
    inherits that module's import lock, held by a thread it does not have, and hung at its
    first import of it: the compiler imports libcst, the tracer and the code generator on first
    use, and a pool started while another thread compiled lost its first worker."""
    try:
        from importlib import _bootstrap

        locks = _bootstrap._module_locks
    except (ImportError, AttributeError):  # pragma: no cover - another importlib
        return
    me, deadline = threading.get_ident(), time.monotonic() + IMPORT_WAIT
    while time.monotonic() < deadline:
        try:
            busy = any(_held_by_other(ref(), me) for ref in list(locks.values()))
        except RuntimeError:  # another thread changed the dict while it was copied
            busy = True
        if not busy:
            return
        time.sleep(0.002)


def _held_by_other(lock: Any, me: int) -> bool:
    """Whether ``lock`` (an importlib module lock, or None) is held by a thread but ``me``."""
    return lock is not None and bool(getattr(lock, "count", 0)) and lock.owner not in (me, None)


os.register_at_fork(before=_imports_settled)
