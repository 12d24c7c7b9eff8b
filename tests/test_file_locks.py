"""Lock files across processes (runtime/file_locks.py): flock, seen by filelock too."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time

import filelock
import pytest

from astcompile.runtime import file_locks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_one_holder_at_a_time_and_filelock_sees_it(tmp_path):
    path = str(tmp_path / "a.lock")
    with file_locks.hold(path, 0o600) as held:
        assert held is True
        assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0  # private
        with pytest.raises(filelock.Timeout):
            filelock.FileLock(path).acquire(timeout=0)
    with filelock.FileLock(path), file_locks.hold(path, 0o600, wait=False) as held:
        assert held is False
    with file_locks.hold(path, 0o600, wait=False) as held:
        assert held is True


def test_another_process_waits_for_the_holder(tmp_path):
    path = str(tmp_path / "a.lock")
    code = textwrap.dedent(
        f"""
        import time
        from astcompile.runtime import file_locks
        print("asking", flush=True)
        start = time.monotonic()
        with file_locks.hold({path!r}, 0o600):
            print(time.monotonic() - start)
        """
    )
    with file_locks.hold(path, 0o600):
        waiter = subprocess.Popen(
            [sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        # the wait is timed from the child's request: its start-up (seconds under load) is not
        assert waiter.stdout.readline() == "asking\n"
        time.sleep(1.0)
        assert waiter.poll() is None  # still waiting
    out, _ = waiter.communicate(timeout=60)
    assert waiter.returncode == 0 and float(out) > 0.5


def test_a_child_forked_while_a_lock_is_held_does_not_keep_it(tmp_path):
    """A flock lives while any copy of its descriptor is open: the child closes its copy at
    the fork, or the lock would stay taken after its holder let go, until the child exits."""
    path = str(tmp_path / "a.lock")
    with file_locks.hold(path, 0o600):
        child = _lingering_child()
    try:
        with file_locks.hold(path, 0o600, wait=False) as held:
            assert held is True
    finally:
        _end(*child)


def _lingering_child() -> tuple[int, tuple[int, ...]]:
    """A forked child that lives until :func:`_end`, once the fork's handlers have run in it."""
    (read, write), (ready_read, ready_write) = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(ready_write, b"x")
        os.close(write)
        os.read(read, 1)
        os._exit(0)
    os.read(ready_read, 1)
    return pid, (read, write, ready_read, ready_write)


def _end(pid: int, fds: tuple[int, ...]) -> None:
    for fd in fds:
        os.close(fd)
    os.waitpid(pid, 0)


def test_a_child_forked_while_a_thread_waits_for_a_lock_does_not_keep_it(tmp_path):
    """The waiting thread's descriptor is closed in the child too: once the wait ends its
    copy would hold the lock, past the thread's release, until the child exited (a pool's
    workers forked while the call path's build waited for its lock never got it)."""
    import threading

    path = str(tmp_path / "a.lock")
    done = threading.Event()

    def waits() -> None:
        with file_locks.hold(path, 0o600):
            pass
        done.set()

    with file_locks.hold(path, 0o600):
        waiter = threading.Thread(target=waits)
        waiter.start()
        time.sleep(0.3)  # the thread waits in flock now
        child = _lingering_child()  # it lives on past both releases
    try:
        assert done.wait(30)
        with file_locks.hold(path, 0o600, wait=False) as held:
            assert held is True
    finally:
        _end(*child)
        waiter.join(30)


def test_a_symlink_is_not_followed(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    os.symlink(target, tmp_path / "a.lock")
    with pytest.raises(OSError), file_locks.hold(str(tmp_path / "a.lock"), 0o600):
        pass
    assert target.read_text() == "keep"


def test_a_cold_first_call_does_not_import_filelock(tmp_path):
    """Its import cost 7 ms of CPU of a 3-line function's cold first call (the build's lock,
    the first build's sweep)."""
    program = tmp_path / "first_call.py"
    program.write_text(
        textwrap.dedent(
            """
            import sys
            import numpy as np
            import astcompile

            @astcompile.compile(backend="c")
            def axpy(a, x, y):
                return a * x + y

            axpy(2.0, np.ones(100), np.ones(100))
            print(astcompile.compile_times().get("build", 0) > 0, "filelock" in sys.modules)
            """
        )
    )
    env = dict(os.environ, ASTCOMPILE_CACHE_DIR=str(tmp_path / "cache"))
    env["ASTCOMPILE_COMPILE_BUDGET"] = "inf"
    out = subprocess.run(
        [sys.executable, str(program)], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"]  # built, without filelock
