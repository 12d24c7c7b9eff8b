"""Whether NumPy's floating-point error state lets compiled code run (checked on every call).

Compiled kernels never report floating-point errors: they produce NumPy's values (inf, nan, 0
for an integer division by zero) silently. That matches NumPy exactly while every error mode is
"ignore" or "warn" (a missing warning is a documented deviation). Under ``np.errstate`` or
``np.seterr`` asking to "raise", "call" or "log" it would not: NumPy raises
``FloatingPointError`` (or calls the handler), so the caller runs the plain Python code instead.

``np.geterr()`` builds a dict (about 0.9 us): far too slow for every region call. NumPy 2 keeps
the whole state in one immutable object held by a context variable (``np.errstate`` and
``np.seterr`` install a new one), so :func:`quiet` compares that object's identity with the last
one found quiet: one ``ContextVar.get`` and one ``is``. A new state object is inspected once with
``np.geterr()`` and remembered. Holding a reference keeps its identity from being reused. The
hottest caller (a compiled function's own call) inlines that test as
``current() is quiet_state or quiet()``, which saves the call of :func:`quiet`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.runtime import fpflags

#: Error modes compiled code honours (by computing NumPy's values without a warning).
QUIET_MODES = frozenset({"ignore", "warn"})


def _state_getter() -> Callable[[], Any]:
    """The current error state as one object; a fresh tuple (never identical) if NumPy does
    not expose its context variable, which keeps :func:`quiet` right, only slower."""
    try:
        from numpy._core._ufunc_config import _extobj_contextvar
    except ImportError:  # pragma: no cover - NumPy without the context variable
        return lambda: tuple(np.geterr().values())
    return _extobj_contextvar.get


current = _state_getter()  # the error state now, as one object
quiet_state: Any = None  # the last state object found quiet
_loud_state: Any = None  # the last state object found not quiet


def quiet() -> bool:
    """True when every floating-point error mode is "ignore" or "warn" (compiled code may run)."""
    state = current()
    if state is quiet_state:
        return True
    return _inspect(state)


def _inspect(state: Any) -> bool:
    """Read the modes of a state object not seen last time, and remember the verdict."""
    global quiet_state, _loud_state
    if state is _loud_state:
        return False
    verdict = set(np.geterr().values()) <= QUIET_MODES
    if verdict:
        quiet_state = state
    else:
        _loud_state = state
    return verdict


#: The last state object found to ignore every error, and (``noisy``) the last found not to,
#: with the CPU flags of the errors it does not ignore (:func:`loud`, which the C-level call
#: path asks once per new state: ``fastcall.c``'s STATE).
ignore_state: Any = None
noisy: tuple[Any, int] = (None, 0)


def ignored() -> bool:
    """True when every floating-point error mode is "ignore": no flag a compiled run raises is
    seen, so a region need not keep what it stores into for a rerun (``jit/fp_errors.py``).
    Remembered by identity, as :func:`quiet`: one ``np.geterr()`` per new state object."""
    global ignore_state, noisy
    state = current()
    if state is ignore_state:
        return True
    if state is noisy[0]:
        return False
    modes = np.geterr()
    if set(modes.values()) == {"ignore"}:
        ignore_state = state
        return True
    noisy = (state, sum(bit for bit, kind in fpflags.KINDS.items() if modes[kind] != "ignore"))
    return False


def loud() -> int:
    """The CPU flags of the errors the current error state does not ignore (0: none)."""
    return 0 if ignored() else noisy[1]


#: ``(warnings.filters, its first filter, its length, the verdict)`` last sorted by
#: :func:`warnings_raise`; ``fastcall.c``'s FILTERS reads it at once.
filters_seen: tuple = (None, None, -1, False)


def warnings_raise() -> bool:
    """Whether some warnings filter may make NumPy's RuntimeWarning an exception: NumPy then
    raises before the store, so a region's out parameters are kept for the rerun
    (``jit/fp_errors.restoring``; the C-level call path leaves such calls to it). Remembered
    against the list's identity, first filter and length: a filter added goes first,
    ``catch_warnings`` swaps in another list; one scan per change."""
    global filters_seen
    filters = warnings.filters
    first = filters[0] if filters else None
    seen = filters_seen
    if seen[0] is filters and seen[1] is first and seen[2] == len(filters):
        return seen[3]
    verdict = any(f[0] == "error" and issubclass(RuntimeWarning, f[2]) for f in filters)
    filters_seen = (filters, first, len(filters), verdict)
    return verdict
