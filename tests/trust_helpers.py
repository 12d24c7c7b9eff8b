"""Shared by the cache-security tests: a second user to own planted files, and payloads."""

from __future__ import annotations

import os
import pickle
import pwd
import subprocess

import pytest

OTHER_USER = "astc-other"


def other_uid() -> int:
    """The uid of a second account (created once); skips the test when we cannot make one."""
    if not hasattr(os, "getuid") or os.getuid() != 0:
        pytest.skip("needs root to create a second user and chown files to it")
    try:
        return pwd.getpwnam(OTHER_USER).pw_uid
    except KeyError:
        pass
    proc = subprocess.run(
        ["useradd", "--system", "--no-create-home", OTHER_USER],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 and "already exists" not in proc.stderr:
        pytest.skip(f"useradd failed: {proc.stderr.strip()}")
    return pwd.getpwnam(OTHER_USER).pw_uid


class _Payload:
    """Unpickling it creates ``marker``: proof that a planted pickle ran."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').close()",))


def planted_pickle(marker: str) -> bytes:
    return pickle.dumps([_Payload(marker)])


def chown_tree(path: str, uid: int) -> None:
    for folder, _, files in os.walk(path):
        os.chown(folder, uid, -1)
        for name in files:
            os.chown(os.path.join(folder, name), uid, -1)


def flip_byte(path: str) -> None:
    """Flip the bits of one byte in the middle of ``path`` (same size, other content)."""
    data = bytearray(_take(path))
    data[len(data) // 2] ^= 0xFF
    _put(path, bytes(data))


def truncate(path: str) -> None:
    _put(path, _take(path)[: os.path.getsize(path) // 3])


def _take(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _put(path: str, data: bytes) -> None:
    """A new file in its place (a library this process has mapped keeps its old pages)."""
    mode = os.stat(path).st_mode
    os.unlink(path)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT, mode & 0o777), "wb") as f:
        f.write(data)


#: A C compiler that hangs (``sleep`` in a child, so that only killing its whole process group
#: ends it) when its arguments match ``pattern``, and is gcc otherwise. It writes its own and
#: its child's process ids to ``pids``.
HANGING_CC = """#!/bin/sh
case "$*" in
  {pattern})
    echo $$ >> {pids}
    sleep 300 &
    echo $! >> {pids}
    wait
    ;;
  *) exec {gcc} "$@" ;;
esac
"""


def hanging_compiler(folder, pattern: str = "*") -> tuple[str, str]:
    """(path of a :data:`HANGING_CC` script, path of its process-id file)."""
    import shutil

    pids, cc = os.path.join(folder, "cc-pids"), os.path.join(folder, "hangcc")
    gcc = shutil.which("gcc") or shutil.which("cc")
    with open(cc, "w") as f:
        f.write(HANGING_CC.format(pattern=pattern, pids=pids, gcc=gcc))
    os.chmod(cc, 0o755)
    return cc, pids


def started(pids: str) -> list[int]:
    """The process ids a hanging compiler wrote so far."""
    try:
        with open(pids) as f:
            return [int(line) for line in f.read().split()]
    except OSError:
        return []


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie nobody reaped yet has ended too). Linux."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
