"""Failures remembered across processes: the warm cache's half of ``jit/failures.py``.

Two records, beside the rewrites and region entries of ``jit/warm.py`` and keyed the same way:

* ``frontend/<function key>.kept.json``: the loops and lines of a function that earlier
  processes left in Python because they would not compile. A new process starts from the
  rewrite with them in Python (cached under a key that names them), so it neither traces the
  loops that failed nor rebuilds the function, call after call, as the first process did.
* ``regions/<entry name>.plain.json``: a region's failure class (``failures.failure_class``),
  with the break that made it: the region runs its statements for that class without a trace.

Both are for the C target only (as region entries are: a C-lowering refusal says nothing of
another target) and unused under ``explain``, which traces to show every break.
"""

from __future__ import annotations

import dataclasses
import json
import types
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile import logs
from astcompile.frontend import rewrite_cache
from astcompile.jit import telemetry
from astcompile.jit.warm import entry_name, persistent_key, stores_for, target_store
from astcompile.runtime import forksafe

if TYPE_CHECKING:
    from astcompile.jit.failures import Why
    from astcompile.jit.protocols import CompilingRegion, Owner

PLAIN_FORMAT = "plain-v1"
_lock = forksafe.module_lock(__name__)
_tried: weakref.WeakKeyDictionary[Any, set] = weakref.WeakKeyDictionary()  # region -> classes


def keeps_failures(owner: Owner) -> bool:
    """Whether failures of ``owner`` are persisted and reused: for the C target, as its
    entries are (a C-lowering refusal says nothing of another target), and not under
    ``explain``, which traces to show every break."""
    return owner.backend_name in ("auto", "c") and telemetry.active() is None


def load_kept(fn: Callable[..., Any], all_eager: bool) -> rewrite_cache.Kept:
    """The loops and lines of ``fn`` earlier processes left in Python (``failures.py``)."""
    if not isinstance(fn, types.FunctionType):
        return rewrite_cache.NOTHING_KEPT
    return rewrite_cache.load_kept(fn, all_eager, stores_for(fn.__code__.co_filename))


def save_kept(fn: Callable[..., Any], all_eager: bool, kept: rewrite_cache.Kept) -> None:
    """Record the loops and lines of ``fn`` that run in Python for :func:`load_kept`."""
    store = target_store(fn.__code__.co_filename) if isinstance(fn, types.FunctionType) else None
    if store is None:
        return
    try:
        rewrite_cache.save_kept(fn, all_eager, store, kept)
    except OSError as exc:
        logs.root.info("could not record the loops %s keeps in Python: %s", fn.__qualname__, exc)


def _plain_name(region: CompilingRegion, cls: tuple, args: tuple) -> str | None:
    pkey = persistent_key(region, cls, args)
    return entry_name(region, pkey, ".plain.json") if pkey else None


def save_plain(region: CompilingRegion, cls: tuple, args: tuple, why: Why) -> None:
    """Persist that ``region`` runs its statements for arguments of class ``cls``
    (``jit/failures.py``), so that the next process does not trace it again."""
    name = _plain_name(region, cls, args)
    store = target_store(region.owner.fn.__code__.co_filename) if name else None
    if store is None:
        return
    if isinstance(why, str):
        record = {"format": PLAIN_FORMAT, "text": why}
    else:
        record = {
            "format": PLAIN_FORMAT,
            "break": {**dataclasses.asdict(why), "reason": why.reason.name},
        }
    try:
        store.write("regions", name, json.dumps(record).encode())
    except OSError as exc:
        logs.root.info("failure of %s not persisted: %s", region.owner.name, exc)


def load_plain(region: CompilingRegion, classes: tuple, args: tuple) -> bool:
    """Whether an earlier process found that ``region`` cannot compile one of ``classes`` (the
    classes of ``args``, which the region now remembers, and logs once). Never under
    ``explain``, which traces."""
    if telemetry.active() is not None:
        return False
    for cls in classes:
        with _lock:
            tried = _tried.setdefault(region, set())
            if cls in tried:
                continue
            tried.add(cls)
        name = _plain_name(region, cls, args)
        why = _read_plain(region, name) if name else None
        if why is not None:
            region.remember_plain(cls, why)
            return True
    return False


def _read_plain(region: CompilingRegion, name: str) -> Why | None:
    from astcompile.frontend.breaks import BreakReason, GraphBreak

    for store in stores_for(region.owner.fn.__code__.co_filename):
        data = store.read("regions", name)
        try:
            record = json.loads(data) if data is not None else {}
            if record.get("format") != PLAIN_FORMAT:
                continue
            if "text" in record:
                return str(record["text"])
            fields = record["break"]
            return GraphBreak(**{**fields, "reason": BreakReason[fields["reason"]]})
        except (ValueError, KeyError, TypeError) as exc:
            logs.root.info("unreadable failure record %s: %s", name, exc)
    return None
