"""The floating-point exception flags of the calling thread, around a compiled region's run.

NumPy warns (or raises, calls, logs: ``np.errstate``) when a ufunc raised the CPU's
divide-by-zero, overflow, underflow or invalid flag. Compiled kernels compute the same
operations, so they raise the same flags (the kernels gather an OpenMP team's flags onto the
calling thread: ``astc_fp_join`` in ``astc_math.h``). A region clears the flags before its
compiled run and tests them after; only when one is raised and NumPy's error state for it is
not "ignore" does the caller do more (``jit/fp_errors.py``). ``fetestexcept`` and
``feclearexcept`` are libm's, called through cffi (about 0.1 us each) until the C call path's
extension is loaded (``fastcall.py``), then through it (tens of nanoseconds: :func:`use`).

Part of the runtime: must not import the compiler.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from functools import partial

#: NumPy's errstate key for each flag, by machine: <fenv.h>'s values
_FLAGS = {
    "x86_64": {4: "divide", 8: "over", 16: "under", 1: "invalid"},
    "aarch64": {2: "divide", 4: "over", 8: "under", 1: "invalid"},
}
KINDS: dict[int, str] = _FLAGS.get(platform.machine(), {})
ALL = sum(KINDS)


def _libm() -> tuple[Callable[[int], int], Callable[[int], int]] | None:
    """libm's flag functions, or None where this machine's flags or libm are unknown (then no
    region looks at the flags: compiled code is silent, as it was)."""
    if not KINDS:
        return None
    try:
        import cffi

        ffi = cffi.FFI()
        ffi.cdef("int fetestexcept(int); int feclearexcept(int);")
        lib = ffi.dlopen("libm.so.6")
        return lib.feclearexcept, lib.fetestexcept
    except (ImportError, OSError):  # pragma: no cover - no cffi or no glibc
        return None


def _unavailable() -> int:
    return 0


_functions = _libm()
available = _functions is not None
#: clear(): clear the calling thread's flags (before a compiled run); raised(): the flags
#: raised on it since (0: none). Partials of the C functions: no Python frame per call.
clear, raised = (
    (partial(_functions[0], ALL), partial(_functions[1], ALL))
    if _functions is not None
    else (_unavailable, _unavailable)
)


def use(clear_flags: Callable[[], object], raised_flags: Callable[[], int]) -> None:
    """Clear and test the flags with these functions from now on (the C call path's: same
    flags, no cffi call). Machines whose flags are unknown keep looking at none."""
    global clear, raised
    if available:
        clear, raised = clear_flags, raised_flags


def kinds(flags: int) -> list[str]:
    """The error state keys of ``flags`` in NumPy's order of reporting."""
    return [kind for bit, kind in KINDS.items() if flags & bit]
