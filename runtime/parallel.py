"""How many OpenMP threads a kernel may use.

GNU OpenMP's thread pool does not survive ``fork``: a child that enters a parallel region the
parent had already used waits forever for threads that no longer exist. Every generated kernel
takes an ``nthreads`` argument and opens no parallel team when it is 1, and a forked child
always passes 1 (detected with ``os.register_at_fork``), so ``multiprocessing`` workers run
compiled code single-threaded instead of hanging.
"""

from __future__ import annotations

import os

# OpenMP threads that spin after a kernel steal the cores from NumPy's BLAS threads (a matmul
# right after a kernel ran 1.5x slower); sleeping waiters avoid it. Read when libgomp loads,
# so set before the first kernel library is opened; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

_forked = False


def _after_fork_in_child() -> None:
    global _forked, _nthreads
    _forked = True
    _nthreads = 1


def _default_threads() -> int:
    """The user's ``OMP_NUM_THREADS``, else minus the CPUs we may run on: a negative count
    lets a kernel's team take only those of them idle when it opens (``astc_threads`` in
    astc_math.h: on a machine whose other CPUs are busy, a team waits for them)."""
    explicit = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if explicit.isdigit() and int(explicit) > 0:
        return int(explicit)
    try:
        return -max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return -max(1, os.cpu_count() or 1)


_nthreads = _default_threads()
os.register_at_fork(after_in_child=_after_fork_in_child)


def nthreads() -> int:
    """Threads a kernel call may use now (1 in a forked child)."""
    return abs(_nthreads)


def kernel_threads() -> int:
    """The ``nthreads`` a kernel is passed: negative for the default count (idle CPUs only).
    The C call path reads ``_nthreads`` itself (runtime/fastcall.c)."""
    return _nthreads


def in_forked_child() -> bool:
    return _forked


def set_num_threads(n: int) -> None:
    """Cap the threads of later kernel calls (ignored in forked children, which stay at 1)."""
    global _nthreads
    if not _forked:
        _nthreads = max(1, int(n))
