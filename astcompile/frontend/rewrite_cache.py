"""The rewrite cache: a function's rewritten source and regions, stored so a new process skips
libcst, the analysis and the rewrite.

An entry is found by :func:`function_key`: a hash of the function's compiled code (which changes
with its source), the astcompile, Python and NumPy versions and the rewrite options. The rewrite
also depends on what the names in the body resolved to when it was analysed (a callee's source
decides whether it is inlined; a ``disable`` mark makes a call a break), so the entry records
every name the resolver looked up, with a fingerprint of what it found (:mod:`lookup`), and a
load re-resolves them and refuses the entry if any changed. Functions with closure cells (or
callees with them) are not cached: cell values are not part of any fingerprint.

No libcst here.
"""

from __future__ import annotations

import hashlib
import json
import os
import types
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from astcompile import logs, registry
from astcompile.frontend.breaks import BreakReason, GraphBreak
from astcompile.frontend.lookup import code_hash, fingerprint, lookup
from astcompile.frontend.spec import RegionSpec, structured_specs
from astcompile.runtime import artifacts

FORMAT = "frontend-v4"  # v4: rewrites only of text that compiles to the live code
Lookups = Sequence[tuple[tuple[str, ...], str, "str | None"]]
#: Lines of the loops and statements that failed to compile and run in Python
#: (``CompiledFunction.python_loops``, ``python_lines``): a rewrite is cached per set.
Kept = tuple[tuple[int, ...], tuple[int, ...]]
NOTHING_KEPT: Kept = ((), ())


@dataclass(frozen=True)
class CachedRewrite:
    """What ``CompiledFunction`` needs to build its implementation, as the rewrite made it."""

    source: str
    regions: tuple[RegionSpec, ...]
    breaks: tuple[GraphBreak, ...]
    digest: (
        str | None
    )  # names this entry's content (region entries are keyed by it); None: not cached
    filename: str = ""
    lookups: tuple = ()  # what the names resolved to when it was made (see stale_reason)


def function_key(fn: Callable, all_eager: bool, kept: Kept = NOTHING_KEPT) -> str | None:
    """The entry name for ``fn``, or None when ``fn`` cannot be cached (closure, no code);
    ``kept``: of the rewrite with those loops and lines in Python."""
    if not isinstance(fn, types.FunctionType) or fn.__closure__:
        return None
    from astcompile.buildid import compiler_id

    parts = (
        FORMAT,
        compiler_id(),
        artifacts.python_version(),
        np.__version__,
        str(fn.__module__),  # None for a function exec'd without a __name__ in its globals
        fn.__qualname__,
        code_hash(fn),  # the code's line numbers too: ``kept`` lines stay where they were
        str(all_eager),
        *([repr(kept)] if kept != NOTHING_KEPT else []),
    )
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:40]


def load(
    fn: Callable,
    all_eager: bool,
    stores: Sequence[artifacts.Store],
    validate: bool = True,
    kept: Kept = NOTHING_KEPT,
) -> CachedRewrite | None:
    """The first valid entry for ``fn`` in ``stores``; stale entries are logged and skipped.

    ``validate=False`` skips re-resolving the recorded names (for a provisional early look).
    """
    key = function_key(fn, all_eager, kept)
    if key is None:
        return None
    for store in stores:
        data = store.read("frontend", key + ".json")  # its source is executed: trusted only
        if data is None:
            continue
        try:
            entry = json.loads(data)
            why = stale_reason(fn, entry["lookups"]) if validate else None
            if why is None:
                return _from_entry(entry, _filename(fn), _digest(data))
        except (ValueError, KeyError, TypeError) as exc:
            why = f"unreadable ({type(exc).__name__}: {exc})"
        logs.root.info(
            "rewrite cache entry for %s in %s not used: %s", fn.__qualname__, store.root, why
        )
    return None


def save(
    fn: Callable,
    all_eager: bool,
    store: artifacts.Store,
    source: str,
    regions: Sequence[RegionSpec],
    breaks: Sequence[GraphBreak],
    lookups: Lookups,
    kept: Kept = NOTHING_KEPT,
) -> str | None:
    """Store the rewrite of ``fn``; returns the entry's digest, None when it is not cacheable."""
    key = function_key(fn, all_eager, kept)
    if key is None or any(fp is None for _, _, fp in lookups):
        return None
    filename = _filename(fn)
    entry = {
        "format": FORMAT,
        "function": f"{fn.__module__}:{fn.__qualname__}",
        "code_hash": code_hash(fn),
        "source": source,
        "regions": [asdict(spec) for spec in regions],
        "breaks": [_break_record(b, filename) for b in breaks],
        "lookups": _unique(lookups),
    }
    data = json.dumps(entry, sort_keys=True).encode()
    store.write("frontend", key + ".json", data)
    return _digest(data)


def load_kept(fn: Callable, all_eager: bool, stores: Sequence[artifacts.Store]) -> Kept:
    """The loops and lines an earlier process found would not compile and left in Python."""
    key = function_key(fn, all_eager)
    for store in stores if key is not None else ():
        data = store.read("frontend", key + ".kept.json")
        try:
            found = json.loads(data) if data is not None else None
            if found is not None and found.get("format") == FORMAT:
                return tuple(sorted(found["loops"])), tuple(sorted(found["lines"]))
        except (ValueError, KeyError, TypeError) as exc:
            logs.root.info("unreadable kept loops of %s: %s", fn.__qualname__, exc)
    return NOTHING_KEPT


def save_kept(fn: Callable, all_eager: bool, store: artifacts.Store, kept: Kept) -> None:
    """Record ``kept`` for :func:`load_kept` (the sets only grow within a process)."""
    key = function_key(fn, all_eager)
    if key is not None:
        record = {"format": FORMAT, "loops": list(kept[0]), "lines": list(kept[1])}
        store.write("frontend", key + ".kept.json", json.dumps(record).encode())


def _unique(lookups: Lookups) -> list[list[Any]]:
    seen, out = set(), []
    for path, dotted, fp in lookups:
        if (path, dotted) not in seen:
            seen.add((path, dotted))
            out.append([list(path), dotted, fp])
    return out


def stale_reason(fn: Callable, lookups: Sequence[Sequence[Any]]) -> str | None:
    """Why the recorded look-ups no longer hold for ``fn`` (a name now means something else)."""
    for path, dotted, fp in lookups:
        owner = _owner(fn, path)
        if owner is None:
            return f"callee {'.'.join(path)} is no longer a plain function"
        if fingerprint(lookup(owner, dotted)) != fp:
            where = f" in {'.'.join(path)}" if path else ""
            return f"`{dotted}`{where} changed since the rewrite was cached"
    return None


def _owner(fn: Callable, path: Sequence[str]) -> types.FunctionType | None:
    """The function whose body made a look-up: ``fn``, or a callee reached through ``path``."""
    obj: Any = fn
    for name in path:
        obj = lookup(obj, name)
        while registry.is_compiled(obj) or registry.disable_mode(obj) is not None:
            obj = getattr(obj, "__wrapped__", None)
        obj = getattr(obj, "__func__", obj)
        if not isinstance(obj, types.FunctionType):
            return None
    return obj


def _break_record(graph_break: GraphBreak, filename: str) -> dict[str, Any]:
    record = asdict(graph_break)
    record["reason"] = graph_break.reason.name
    if record["filename"] == filename:
        record["filename"] = ""  # filled in on load: the package may have moved
    return record


def _from_entry(entry: dict[str, Any], filename: str, digest: str) -> CachedRewrite:
    regions = tuple(
        RegionSpec(
            **{
                **spec,
                "params": tuple(spec["params"]),
                "outputs": tuple(spec["outputs"]),
                "globals_read": tuple(spec["globals_read"]),
                "structured": structured_specs(spec.get("structured", ())),
            }
        )
        for spec in entry["regions"]
    )
    breaks = tuple(
        GraphBreak(
            **{
                **record,
                "reason": BreakReason[record["reason"]],
                "filename": record["filename"] or filename,
            }
        )
        for record in entry["breaks"]
    )
    lookups = tuple(entry["lookups"])
    return CachedRewrite(entry["source"], regions, breaks, digest, filename, lookups)


def _filename(fn: Callable) -> str:
    name = fn.__code__.co_filename
    return name if name.startswith("<") else os.path.abspath(name)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:40]
