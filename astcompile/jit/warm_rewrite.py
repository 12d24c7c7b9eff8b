"""A function's persisted rewrite at call time: the warm start's first step (the stores are
``jit/warm.py``'s; the format is ``frontend/rewrite_cache.py``'s)."""

from __future__ import annotations

import os
import types
from collections.abc import Callable
from typing import Any

from astcompile import logs
from astcompile.frontend import rewrite_cache
from astcompile.frontend.lookup import code_hash
from astcompile.frontend.rewrite_cache import NOTHING_KEPT, Kept
from astcompile.jit.warm import stores_for, target_store, warn_once
from astcompile.runtime import artifacts


def load_rewrite(
    fn: Callable[..., Any], all_eager: bool, validate: bool = True, kept: Kept = NOTHING_KEPT
) -> rewrite_cache.CachedRewrite | None:
    """The cached rewrite of ``fn`` (``kept`` lines in Python), warning when stale."""
    if not isinstance(fn, types.FunctionType):
        return None
    stores = stores_for(fn.__code__.co_filename)
    found = rewrite_cache.load(fn, all_eager, stores, validate, kept)
    if found is None and validate and stores and stores[0].root.endswith(artifacts.ARTIFACT_DIR):
        _warn_stale(fn, stores[0])
    return found


def _warn_stale(fn: Callable[..., Any], store: artifacts.Store) -> None:
    from astcompile.version import __version__

    manifest, _ = artifacts.check_manifest(os.path.dirname(store.root), __version__)
    name = f"{fn.__module__}:{fn.__qualname__}"
    record = (manifest or {}).get("functions", {}).get(name)
    if record is None:
        return
    why = "its source changed after the build"
    if record.get("code_hash") == code_hash(fn):
        why = rewrite_cache.stale_reason(fn, record.get("lookups", [])) or "its entry is missing"
    warn_once(
        f"stale:{name}",
        f"astcompile: ahead-of-time artifacts for {name} in {store.root} "
        f"are stale ({why}); compiling it instead",
    )


def save_rewrite(
    fn: Callable[..., Any], all_eager: bool, *args: Any, kept: Kept = NOTHING_KEPT
) -> str | None:
    """Persist a fresh rewrite (see :func:`astcompile.frontend.rewrite_cache.save`); its digest or None."""
    if not isinstance(fn, types.FunctionType):
        return None
    store = target_store(fn.__code__.co_filename)
    if store is None:
        return None
    try:
        return rewrite_cache.save(fn, all_eager, store, *args, kept=kept)
    except OSError as exc:
        logs.root.info("could not cache the rewrite of %s: %s", fn.__qualname__, exc)
        return None
