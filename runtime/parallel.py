"""How many OpenMP threads a kernel may use.

GNU OpenMP's thread pool does not survive ``fork``: a child that enters a parallel region the
parent had already used waits forever for threads that no longer exist. Every generated kernel
takes an ``nthreads`` argument and opens no parallel team when it is 1, and a forked child
always passes 1 (detected with ``os.register_at_fork``), so ``multiprocessing`` workers run
compiled code single-threaded instead of hanging.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator

# OpenMP threads that spin after a kernel steal the cores from NumPy's BLAS threads (a matmul
# right after a kernel ran 1.5x slower); sleeping waiters avoid it. Read when libgomp loads,
# so set before the first kernel library is opened; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

_forked = False


def _after_fork_in_child() -> None:
    global _forked, _nthreads
    _forked = True
    _nthreads = 1


def _read(*path: str) -> str:
    try:
        with open(os.path.join(*path)) as f:
            return f.read().strip()
    except OSError:
        return ""


def _quota_cpus(root: str = "/sys/fs/cgroup") -> int | None:
    """The CPUs a cgroup CPU quota grants, rounded up (v2 ``cpu.max`` "200000 100000": 2; v1
    ``cfs_quota_us`` / ``cfs_period_us``); None without one. A container given 2 CPUs of a
    64-CPU host still has all 64 in its affinity, and a team of 64 would share 2."""
    quota, period = (_read(root, "cpu.max").split() + ["", ""])[:2]
    if not quota:  # v1
        quota, period = (_read(root, "cpu", f"cpu.cfs_{name}_us") for name in ("quota", "period"))
    if not (quota.isdigit() and period.isdigit()) or int(quota) == 0:  # "max", -1: none
        return None
    return max(1, math.ceil(int(quota) / max(1, int(period))))


def _default_threads() -> int:
    """The user's ``OMP_NUM_THREADS``, else minus the CPUs we may run on (affinity, cgroup
    quota): a negative count lets a kernel's team take only those of them idle when it opens
    (``astc_threads`` in astc_math.h: on a machine whose other CPUs are busy, a team waits for
    them)."""
    explicit = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if explicit.isdigit() and int(explicit) > 0:
        return int(explicit)
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return -max(1, min(cpus, _quota_cpus() or cpus))


_DEFAULT = _default_threads()
_nthreads = _DEFAULT
os.register_at_fork(after_in_child=_after_fork_in_child)


def nthreads() -> int:
    """Threads a kernel call may use now (1 in a forked child)."""
    return abs(_nthreads)


def kernel_threads() -> int:
    """The ``nthreads`` a kernel is passed: negative for the default count (idle CPUs only).
    The C call path reads ``_nthreads`` itself (runtime/fastcall.c)."""
    return _nthreads


def set_num_threads(n: int | None) -> int | None:
    """Cap the threads of later kernel calls, or with None go back to the default (idle CPUs
    only); returns the setting it replaced, which restores it exactly (``nthreads()`` is a
    count, and setting it fixes the count). Ignored in forked children, which stay at 1."""
    global _nthreads
    previous = None if _nthreads < 0 else _nthreads
    if not _forked:
        _nthreads = _DEFAULT if n is None else max(1, int(n))
    return previous


@contextlib.contextmanager
def num_threads(n: int | None) -> Iterator[None]:
    """``set_num_threads(n)`` for the ``with`` block, the setting before it restored after."""
    previous = set_num_threads(n)
    try:
        yield
    finally:
        set_num_threads(previous)
