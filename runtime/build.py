"""Compile C source straight to a shared object with the system C compiler.

We call gcc directly rather than cffi's ``set_source``/``compile``: that route builds a CPython
extension (Python.h, a generated wrapper per function) and took several times longer for the
same kernels (numbers in ``docs/benchmarks.md``); the kernels are then loaded in cffi's ABI mode
(``ffi.dlopen``), which needs no Python headers at all.

Flags: ``-O2 -march=native`` (the cache key includes the CPU's features), ``-fopenmp``,
``-fwrapv`` (signed overflow wraps as in NumPy), ``-fno-math-errno`` (math functions need not
set ``errno``; results are unchanged, and ``sqrt`` becomes one instruction). No ``-ffast-math``:
NaN, inf and signed zeros behave as in NumPy. ``-ffp-contract=off``: GCC would otherwise fuse
``a * b + c`` into one FMA, rounding once where NumPy's two ufuncs round twice, and the compiled
result would differ from NumPy's in the last bit. That costs FMA-heavy kernels some speed (gelu
about 1.3x slower on this machine) and buys elementwise results equal to NumPy's bits. The math functions are declared
``simd("notinbranch")`` in ``include/astc_math.h`` and ``-lmvec`` links glibc's vector variants.

``-O2``, not ``-O3``: every inner loop the C generator writes is ``#pragma omp simd``, which GCC
vectorises at ``-O2`` too (``-fopenmp`` forces it), so the kernels ran as fast in our benchmarks
(within the noise, all eight bench kernels) while GCC took 20-30% less time (softmax: 0.24 s
against 0.31-0.36 s of compiler CPU time; the 8-element kernel 0.09-0.11 s against 0.12-0.15 s),
and the build is most of a first call.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
import shutil
import signal
import subprocess
import threading

from . import forksafe
from .errors import BuildTimeout, CompilerNotFound, RuntimeBuildError

INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")
CFLAGS = (
    "-O2",
    "-march=native",
    "-fopenmp",
    "-fwrapv",
    "-fno-math-errno",
    "-ffp-contract=off",
    "-fPIC",
    "-shared",
)
LIBS = ("-lmvec", "-lm")


def find_compiler() -> str:
    """The C compiler: ``$CC`` if set, else ``gcc`` then ``cc`` on PATH.

    A ``$CC`` that cannot be run is an error, not a reason to pick gcc behind the user's back
    (they chose that compiler; kernels built by another would be a surprise)."""
    explicit = os.environ.get("CC")
    if explicit:
        path = shutil.which(explicit)
        if path is None:
            raise CompilerNotFound(
                f"$CC is set to {explicit!r}, which cannot be run (not found on PATH, or not "
                "executable; it must name one program, without arguments). Set CC to the name "
                "or path of a C compiler, or unset it to use gcc."
            )
        return path
    for name in ("gcc", "cc"):
        if path := shutil.which(name):
            return path
    raise CompilerNotFound(
        "no C compiler found: the C backend needs gcc on PATH (or $CC). Install gcc "
        "(apt-get install gcc), or use backend='eager', or set suppress_errors=True to run "
        "such regions in NumPy."
    )


@functools.lru_cache(maxsize=1)
def headers_digest() -> str:
    """A hash of the runtime's C headers: kernels built against older helpers are stale."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(INCLUDE_DIR)):
        with open(os.path.join(INCLUDE_DIR, name), "rb") as f:
            digest.update(name.encode() + b"\0" + f.read())
    return digest.hexdigest()[:16]


def compiler_id(path: str) -> str:
    """Identifies the compiler binary for cache keys without running it (a stat, not a fork)."""
    real = os.path.realpath(path)
    st = os.stat(real)
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


@functools.lru_cache(maxsize=1)
def cpu_features() -> str:
    """What ``-march=native`` depends on: the CPU model and feature flags."""
    model = flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and not model:
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = line.split(":", 1)[1].strip()
                if model and flags:
                    break
    except OSError:
        import platform

        model = platform.processor() or platform.machine()
    return f"{model}|{flags}"


def compile_shared(
    source: str,
    out_path: str,
    workdir: str,
    compiler: str,
    timeout: float | None = None,
    flags: tuple[str, ...] = (*CFLAGS, f"-I{INCLUDE_DIR}"),
    libs: tuple[str, ...] = LIBS,
) -> None:
    """Write ``source`` to ``workdir`` and build it into the shared object ``out_path``
    (``flags`` and ``libs``: a kernel library's unless told; see :mod:`fastcall`).

    The compiler runs in its own process group, so that on ``timeout`` (or an interrupt) the
    whole group goes (gcc's cc1, as and ld with it) and nothing is left running; at exit too
    (:func:`stop_running`), and when this process is killed outright (a watchdog)."""
    src_path = os.path.join(workdir, "kernels.c")
    with open(src_path, "w") as f:
        f.write(source)
    cmd = [compiler, *flags, "-o", out_path, src_path, *libs]
    with _starting:  # a fork waits meanwhile (see _starting)
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        _running.add(proc)
        watchdog = _watch(proc.pid)
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise BuildTimeout(
            f"the C compiler did not finish within {timeout:g} s: {' '.join(cmd)}. Raise "
            "astcompile.config.build_timeout (ASTCOMPILE_BUILD_TIMEOUT), or check the compiler "
            "($CC)."
        ) from None
    except BaseException:
        _kill_group(proc)
        raise
    finally:
        _running.discard(proc)
        _release(watchdog)
    if proc.returncode != 0:
        raise RuntimeBuildError(
            f"C compiler failed (exit {proc.returncode}): {' '.join(cmd)}\n{stderr[-4000:]}"
        )


#: Compilers running now (killed, with their groups, at exit: a build in a daemon thread).
_running: set[subprocess.Popen] = set()
#: Held while a build starts its compiler and watchdog; ``os.fork`` takes it first. A process
#: forked inside ``Popen`` (a pool started while the call path builds in the background) keeps
#: copies of the new process's pipes, its exec-status pipe among them, and ``Popen`` waits
#: until every copy is closed: the build stalled until the pool's workers exited.
_starting = forksafe.module_lock(__name__, "_starting", threading.RLock)


def _hold_for_fork() -> None:
    _starting.acquire()


def _release_after_fork() -> None:
    _starting.release()


os.register_at_fork(before=_hold_for_fork, after_in_parent=_release_after_fork)
#: The watchdog of a build: it reads one line from a pipe only this process can write; a
#: process killed outright (SIGKILL) closes the pipe, and the watchdog kills the compiler's
#: group, which would otherwise run on, orphaned, writing into the cache.
_WATCHDOG = 'read line; [ "$line" = done ] || kill -KILL "-$1"'


def _watch(pgid: int) -> subprocess.Popen | None:
    sh = shutil.which("sh")
    if sh is None or not hasattr(os, "killpg"):
        return None  # no POSIX shell: the timeout and the exit handler still end it
    try:
        return subprocess.Popen(
            [sh, "-c", _WATCHDOG, "sh", str(pgid)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a signal to our own group must not end it first
        )
    except OSError:
        return None


def _release(watchdog: subprocess.Popen | None) -> None:
    """Tell the watchdog the compiler is done (it exits without killing anything)."""
    if watchdog is None:
        return
    with contextlib.suppress(OSError):
        watchdog.stdin.write(b"done\n")
        watchdog.stdin.close()
    watchdog.wait()


def stop_running() -> None:
    """Kill every compiler this process runs now, with its group (at exit: a build running
    in a daemon thread would otherwise be left behind when the interpreter ends)."""
    for proc in list(_running):
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)


atexit.register(stop_running)
os.register_at_fork(after_in_child=_running.clear)  # the parent's compilers are not the child's


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for stream in (proc.stdout, proc.stderr):  # not communicate(): a process that left the
        stream.close()  # group may hold the pipes open
