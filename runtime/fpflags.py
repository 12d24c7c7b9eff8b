"""The floating-point exception flags of the calling thread, around a compiled region's run.

NumPy warns (or raises, calls, logs: ``np.errstate``) when a ufunc raised the CPU's
divide-by-zero, overflow, underflow or invalid flag. Compiled kernels compute the same
operations, so they raise the same flags (the kernels gather an OpenMP team's flags onto the
calling thread: ``astc_fp_join`` in ``astc_math.h``). A region clears the flags before its
compiled run and tests them after; only when one is raised and NumPy's error state for it is
not "ignore" does the caller do more (``jit/fp_errors.py``). ``fetestexcept`` and
``feclearexcept`` are libm's, called through cffi's backend (about 0.1 us each) until the C call
path's extension is loaded (``fastcall.py``), then through it (tens of nanoseconds: :func:`use`).

Part of the runtime: must not import the compiler.
"""

from __future__ import annotations

import platform
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from . import errstate
from .user_frames import raise_at

#: NumPy's errstate key for each flag, by machine: <fenv.h>'s values
_FLAGS = {
    "x86_64": {4: "divide", 8: "over", 16: "under", 1: "invalid"},
    "aarch64": {2: "divide", 4: "over", 8: "under", 1: "invalid"},
}
KINDS: dict[int, str] = _FLAGS.get(platform.machine(), {})
ALL = sum(KINDS)
#: The bit of each flag in what a kernel reports itself (Triton's: a GPU raises no CPU flag)
KERNEL_BITS = {"divide": 1, "over": 2, "under": 4, "invalid": 8}
IGNORED = dict.fromkeys(KERNEL_BITS, "ignore")  #: ``np.geterr()`` when no flag is reported


def _libm() -> tuple[Callable[[int], int], Callable[[int], int]] | None:
    """libm's flag functions, or None where this machine's flags or libm are unknown (then no
    region looks at the flags: compiled code is silent, as it was)."""
    if not KINDS:
        return None
    try:
        return _int_function("feclearexcept"), _int_function("fetestexcept")
    except (ImportError, OSError, AttributeError):  # pragma: no cover - no cffi or no glibc
        return None


def _int_function(name: str) -> Callable[[int], int]:
    """libm's ``int name(int)``, bound through cffi's C backend: the same libffi call as
    ``cffi.FFI().dlopen``, without the C parser ``cdef`` imports (pycparser, about 10 ms: a
    warm process whose kernels come from the cache imports nothing else of cffi's)."""
    import _cffi_backend

    c_int = _cffi_backend.new_primitive_type("int")
    signature = _cffi_backend.new_function_type((c_int,), c_int, False)
    return _cffi_backend.load_library("libm.so.6").load_function(signature, name)


def _unavailable() -> int:
    return 0


def _load() -> None:
    """Bind :func:`clear` and :func:`raised` to libm's functions, on their first use: a process
    that imports astcompile but never runs compiled code (or gets the C call path's functions
    first: :func:`use`) needs no library opened."""
    global clear, raised
    functions = _libm()
    if functions is None:
        clear, raised = _unavailable, _unavailable
    else:  # partials of the C functions: no Python frame per call
        clear, raised = partial(functions[0], ALL), partial(functions[1], ALL)


def _first_clear() -> object:
    _load()
    return clear()


def _first_raised() -> int:
    _load()
    return raised()


#: clear(): clear the calling thread's flags (before a compiled run); raised(): the flags
#: raised on it since (0: none). Callers look them up on the module at each call, so the
#: first call's :func:`_load` (or :func:`use`) rebinds them for every later one.
clear: Callable[[], object] = _first_clear
raised: Callable[[], int] = _first_raised


def use(clear_flags: Callable[[], object], raised_flags: Callable[[], int]) -> None:
    """Clear and test the flags with these functions from now on (the C call path's: same
    flags, no cffi call). Machines whose flags are unknown keep looking at none."""
    global clear, raised
    if KINDS:
        clear, raised = clear_flags, raised_flags


def raise_kinds(names: set[str]) -> None:
    """Raise the flags of these error state keys ("divide", "over", ...) on the calling thread:
    NumPy's ops noted them (the eager backend's interpreter) where compiled code raises them."""
    flags = sum(bit for bit, kind in KINDS.items() if kind in names)
    if flags:
        _feraiseexcept()(flags)


def raise_bits(bits: int) -> None:
    """Raise the flags of a kernel's report (:data:`KERNEL_BITS`) on the calling thread."""
    if bits:
        raise_kinds({kind for kind, bit in KERNEL_BITS.items() if bits & bit})


#: NumPy's words for an error (what an errstate "call" handler is given) -> its errstate key
_ERROR_KEYS = {
    "divide by zero": "divide",
    "overflow": "over",
    "underflow": "under",
    "invalid value": "invalid",
}


def _errstate_of(**modes: Any) -> tuple[Any, Any]:
    """NumPy's error state context variable and a state of ``modes``, made once:
    ``np.errstate(all="call")`` costs about 0.75 us a use, per NumPy step. (None, None) where
    NumPy does not expose them (``np.errstate`` is used then)."""
    try:
        from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
    except ImportError:  # pragma: no cover - NumPy without the context variable
        return None, None
    return _extobj_contextvar, _make_extobj(**modes)


_local = threading.local()  # .noted: the set the running call_noted fills, on this thread


def _note(words: str, _flag: int) -> None:
    _local.noted.add(_ERROR_KEYS[words])


def call_noted(
    fn: Callable,
    *args: Any,
    noted: set[str] | None = None,
    clear: bool = False,
    reruns: bool = False,
) -> Any:
    """``fn(*args)`` with NumPy's floating-point errors noted (into ``noted``), not reported,
    then raised as the CPU's flags: NumPy steps of a compiled region (the eager interpreter's,
    a C region's host steps) then raise what C kernels raise, and the region tests them once;
    reported as they happen, NumPy warned from our own line, and again when the region ran its
    statements. The flags raised before stay raised (NumPy clears them: a kernel's invalid
    flag was lost to a later ``np.median`` step), or where ``clear`` are cleared. ``reruns``:
    the region's statements can run instead of ``fn`` (:func:`rerun_instead`). An error of a
    ``fn`` with a ``user_line`` (file, line: a C region's NumPy step) is raised at that line
    (:func:`user_frames.raise_at`): free until something raises."""
    kept = 0 if clear else raised()
    noted = set() if noted is None else noted
    outer, _local.noted = getattr(_local, "noted", None), noted
    outer_reruns, _local.reruns = rerun_instead(), reruns
    variable, state = _NOTING
    token = variable.set(state) if variable is not None else None
    try:  # raised too where fn raises: NumPy warns before its error
        if token is None:  # pragma: no cover - NumPy without the context variable
            with np.errstate(all="call", call=_note):
                return fn(*args)
        return fn(*args)
    except Exception as exc:  # NumPy's error (LinAlgError of np.linalg.inv)
        line = getattr(fn, "user_line", None)
        if line is not None:
            raise_at(exc, *line, exc.__traceback__.tb_next, see="a NumPy step of its region")
        raise
    finally:
        if token is not None:
            variable.reset(token)
        _local.noted, _local.reruns = outer, outer_reruns
        if clear:
            clear_flags()  # what NumPy's other functions left (argmax compares NaN): no warning
        if noted:
            raise_kinds(noted)
        if kept:
            _feraiseexcept()(kept)


def rerun_instead() -> bool:
    """Whether the running :func:`call_noted` may end with the region's statements run instead
    (RunPlain): the eager interpreter's steps whose NumPy code warns by ``warnings.warn``
    whatever the error state ("Degrees of freedom <= 0") leave it to them, which warn once,
    as the plain code does, without a process-wide hold on warnings."""
    return getattr(_local, "reruns", False)


def quiet(fn: Callable[[], Any]) -> Any:
    """``fn()`` with NumPy's errors ignored and the flags it raised dropped, those raised
    before kept: a Triton launch (NumPy clears the flags; the interpreter's NumPy ops compute
    masked-off lanes too; the kernel reports its own flags)."""
    kept = raised()
    variable, state = _IGNORING
    if variable is None:  # pragma: no cover - NumPy without the context variable
        with np.errstate(all="ignore"):
            return fn()
    token = variable.set(state)
    try:
        return fn()
    finally:
        variable.reset(token)
        clear()
        if kept:
            _feraiseexcept()(kept)


_reported: list = [None, False]  # the error state object last asked of, and its answer


def reported() -> bool:
    """Whether NumPy's error state reports some flag (not all "ignore"): asked of each new
    state object once (``errstate.py``: ``np.geterr()`` costs about 0.9 us)."""
    state = errstate.current()
    if state is not _reported[0]:
        _reported[:] = [state, np.geterr() != IGNORED]
    return _reported[1]


def clear_flags() -> object:
    """:data:`clear` looked up at the call (``call_noted``'s ``clear`` argument hides it)."""
    return clear()


_NOTING = _errstate_of(all="call", call=_note)
_IGNORING = _errstate_of(all="ignore")


def _feraiseexcept() -> Callable[[int], int]:
    """libm's ``feraiseexcept``, bound on the first use (see :func:`_load`)."""
    global _raise
    if _raise is None:
        _raise = _int_function("feraiseexcept")
    return _raise


_raise: Callable[[int], int] | None = None


def kinds(flags: int) -> list[str]:
    """The error state keys of ``flags`` in NumPy's order of reporting."""
    return [kind for bit, kind in KINDS.items() if flags & bit]
