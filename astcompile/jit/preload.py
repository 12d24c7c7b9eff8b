"""The compiler's front end imported on a thread of its own, waited for within the budget.

A process's first rewrite imports libcst and the analysis first: 0.2 s on an idle machine,
0.7-1.2 s on a loaded one, all of it in the first call, however cheap that call is plain (a
250 ms matrix-chain DP spent 1.5 s of compiling before its first statement, three times the
budget of docs/api.md). Like a region's build (``jit/background.py``), the import now runs
elsewhere and the call waits for it only as long as the function's budget has left
(``jit/budget.py``); past that, the call runs as written, timed, and a later call whose budget
has paid back goes on with the rewrite once the import is done. Without a budget (``inf``: the
tests, explain, verify, ``astcompile build``) and for ``fullgraph=True`` (its breaks raise on
the first call) it is imported in the calling thread, as before.

At exit, functions that never got past the import are rewritten (the import waited for); those
whose loops went to Python after their last rewrite are too (``jit/outgrown.py``).
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from astcompile import config, quiet
from astcompile.runtime import forksafe

if TYPE_CHECKING:
    from astcompile.jit.budget import Budget
    from astcompile.jit.protocols import Owner


class FrontendPending(Exception):
    """The front end is still being imported and the function's budget is spent."""


class Preload:
    """One import run once on a daemon thread; its error, if any, is raised by the import the
    calling thread then runs itself (the same error, where the user sees it)."""

    def __init__(self, load: Callable[[], None]) -> None:
        self.load = load
        self.done = threading.Event()
        self._started = False
        self._lock = threading.Lock()

    def ready_within(self, seconds: float) -> bool:
        """Whether the import is done within ``seconds`` (started here the first time)."""
        if self.done.is_set():
            return True
        with self._lock:
            if not self._started:
                self._started = True
                threading.Thread(target=self._run, name="astcompile-import", daemon=True).start()
        return self.done.wait(max(seconds, 0.0))

    def _run(self) -> None:
        try:
            self.load()
        except Exception:  # noqa: BLE001 - the calling thread's own import raises it
            pass
        finally:
            self.done.set()

    def forget_in_child(self) -> None:
        """A process forked during the import has it half done: its modules are dropped and
        the child imports them again when it needs them."""
        if self.done.is_set():
            return
        if self._started:
            forksafe.forget_half_imported(("libcst", "astcompile."))
        self._started = False
        self._lock = threading.Lock()


def _import_frontend() -> None:
    # libcst warns as it is imported (mypy_extensions' TypedDict); under the user's
    # ``-W error`` or pytest's ``filterwarnings = error`` that failed every first call.
    with quiet.hidden():
        import libcst

        import astcompile.frontend.analysis
        import astcompile.frontend.resolve
        import astcompile.frontend.rewrite  # noqa: F401 - imported here to be timed apart

        libcst.parse_module("")  # its parser is imported on the first parse


FRONTEND = Preload(_import_frontend)

#: Functions whose last rewrite found the front end still being imported past their budget,
#: each with its rewrite (a weak method: it keeps nothing alive).
_awaiting: weakref.WeakKeyDictionary[Owner, weakref.WeakMethod] = weakref.WeakKeyDictionary()


def import_frontend(budget: Budget | None) -> None:
    """The front end's imports for a rewrite charged to ``budget`` (None: no function's):
    waited for within what it has left, else :class:`FrontendPending` (module doc)."""
    if budget is not None and not ready_within(budget):
        raise FrontendPending
    _import_frontend()
    FRONTEND.done.set()  # imported here: no later call waits for the thread


def build_when_ready(owner: Owner, build: Callable[[], Callable]) -> Callable | None:
    """``build()`` (``owner``'s rewrite), or None while it waits for the front end past its
    budget (its call then runs as written); a call after one that found it pending looks at
    the import before reading the source again, and rewrites once the budget allows as well
    (the rewrite is compiling too: 0.2 s of analysis in a call of 4 µs)."""
    if owner in _awaiting and not (owner.budget.may_trace() and ready_within(owner.budget)):
        return None
    _awaiting.pop(owner, None)
    try:
        return build()
    except FrontendPending:
        _awaiting[owner] = weakref.WeakMethod(build)  # type: ignore[arg-type]
        return None


def _rewrite_at_exit() -> None:
    """A function that only ran as written while the front end was imported is rewritten when
    the program ends, so that the next process finds its rewrite in the warm cache and never
    imports the front end for it (as a build its call stopped waiting for is finished at exit:
    ``jit/background.py``); within ``config.build_timeout``, and never raising."""
    rewrites = [ref() for ref in list(_awaiting.values())]
    _awaiting.clear()
    # Ctrl-C while it waits stops it quietly: the program has ended, and ended plain silently
    with contextlib.suppress(KeyboardInterrupt):
        if not any(rewrites) or not FRONTEND.done.wait(config.build_timeout or None):
            return
        for rewrite in rewrites:  # a failure here: the next process compiles it anew
            with contextlib.suppress(Exception):
                if rewrite is not None:
                    rewrite()  # its rewrite stage saves the rewrite


def ready_within(budget: Budget) -> bool:
    """Whether the front end is imported within what ``budget`` has left; at once where the
    budget does not apply (``inf``, ``fullgraph=True``). The wait counts as compiling."""
    if FRONTEND.done.is_set():
        return True
    with budget.spending():
        left = budget.left()
        if budget.traces_always or left == math.inf:
            return True
        return FRONTEND.ready_within(left)


def _forget_in_child() -> None:
    FRONTEND.forget_in_child()
    _awaiting.clear()  # the child's own calls say what it rewrites at its exit


os.register_at_fork(after_in_child=_forget_in_child)
atexit.register(_rewrite_at_exit)
