"""Rewrites owed to the next process: functions whose loops went to Python after their last
rewrite, rewritten when the program ends.

A trace that fails sends the loops or lines around the failure to Python (``jit/failures.py``)
and the function's next call rewrites it. A process that ends before that call saved the
failure (``jit/remembered.py``) but not the rewrite it calls for: the next process started
from the failure, found no rewrite for it, and imported libcst to make one (0.15-0.3 s of its
first call; a third process was the first warm one). At exit each such function is rewritten
here, where the process has the front end imported already (nothing is imported for it), so
that the next process starts from that rewrite; a call that rewrote it meanwhile left it in
the cache, where the ``rewrite_cache`` stage finds it and nothing more runs.
"""

from __future__ import annotations

import atexit
import contextlib
import weakref
from typing import TYPE_CHECKING

from astcompile.jit import preload

if TYPE_CHECKING:
    from astcompile.jit.protocols import Owner

#: Functions whose loops or lines went to Python since their last rewrite (a trace failed).
_owed: weakref.WeakSet[Owner] = weakref.WeakSet()


def rewrite_at_exit(owner: Owner) -> None:
    """Save ``owner``'s rewrite, with what it keeps in Python then, when the program ends."""
    _owed.add(owner)


def _save_owed() -> None:
    """Each owed rewrite (module doc); never raising, and stopped quietly by a Ctrl-C."""
    owners = list(_owed)
    _owed.clear()
    if not owners or not preload.FRONTEND.done.is_set():
        return
    from astcompile import pipeline
    from astcompile.jit import remembered

    with contextlib.suppress(KeyboardInterrupt):
        for owner in owners:  # a failure here: the next process rewrites it, as before
            with contextlib.suppress(Exception):
                if remembered.keeps_failures(owner):  # else the next one starts elsewhere
                    pipeline.save_rewrite(owner)


atexit.register(_save_owed)
