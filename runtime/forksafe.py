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


#: Seconds a fork waits at most for another thread's import to end (one stuck for good, on
#: a network or an event, never ends).
IMPORT_WAIT = 5.0

#: The module locks a fork already waited IMPORT_WAIT for, with their holder: a later fork
#: while the same thread still holds one does not wait for it again (a pool's every worker
#: would pay the whole wait).
_outlasted: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _imports_settled() -> None:
    """Before a fork: wait while another thread imports a module. A child forked meanwhile
    inherits that module's import lock, held by a thread it does not have, and hung at its
    first import of it: the compiler imports libcst, the tracer and the code generator on first
    use, and a pool started while another thread compiled lost its first worker. No wait where
    it cannot end: an importer that waits for a module the forking thread is importing."""
    try:
        from importlib import _bootstrap

        locks, blocked = _bootstrap._module_locks, _bootstrap._blocking_on
    except (ImportError, AttributeError):  # pragma: no cover - another importlib
        return
    me, deadline = threading.get_ident(), time.monotonic() + IMPORT_WAIT
    busy: list = []
    while time.monotonic() < deadline:
        try:
            busy = [
                lock for lock in (ref() for ref in list(locks.values())) if _held_by_other(lock, me)
            ]
            if not busy or any(_waits_for(lock.owner, me, blocked) for lock in busy):
                return
        except RuntimeError:  # another thread changed a dict while it was copied
            pass
        time.sleep(0.002)
    for lock in busy:
        _outlasted[lock] = lock.owner


def _held_by_other(lock: Any, me: int) -> bool:
    """Whether ``lock`` (an importlib module lock, or None) is held by a thread but ``me``,
    other than a holding a fork already waited for in vain."""
    if lock is None or not getattr(lock, "count", 0) or lock.owner in (me, None):
        return False
    return _outlasted.get(lock) != lock.owner


def _waits_for(thread: int, me: int, blocked: Any) -> bool:
    """Whether ``thread`` waits, through a chain of importers, for a module lock ``me`` holds
    (``blocked``: importlib's thread -> the lock, or list of locks, it waits for)."""
    seen, todo = set(), [thread]
    while todo:
        thread = todo.pop()
        if thread in seen or blocked is None:
            continue
        seen.add(thread)
        waiting = blocked.get(thread)
        for lock in waiting if isinstance(waiting, list) else [waiting]:
            owner = getattr(lock, "owner", None)
            if owner == me:
                return True
            if owner is not None:
                todo.append(owner)
    return False


os.register_at_fork(before=_imports_settled)


def forget_half_imported(prefixes: tuple[str, ...]) -> None:
    """Modules under ``prefixes`` that a thread of the parent was importing at the fork stay
    half made in the child, where every use of them fails ("partially initialized module"):
    dropped, so that the child imports them again when it needs them."""
    for name, module in list(sys.modules.items()):
        spec = getattr(module, "__spec__", None)
        if name.startswith(prefixes) and getattr(spec, "_initializing", False):
            del sys.modules[name]
