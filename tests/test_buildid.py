"""astcompile/buildid.py: the compiler's identity is a hash of its files' content, remembered in
the user's cache under a stamp of the files on disk (a warm process reads no source file)."""

from __future__ import annotations

import hashlib
import os

import pytest

import astcompile
from astcompile import buildid
from astcompile.version import __version__


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package of two folders of source files, and a private cache."""
    roots = [tmp_path / "astcompile", tmp_path / "runtime"]
    for root in roots:
        (root / "sub").mkdir(parents=True)
        (root / "a.py").write_text("x = 1\n")
        (root / "sub" / "b.c").write_text("int b;\n")
        (root / "notes.txt").write_text("not source\n")
    monkeypatch.setattr(buildid, "_package_dirs", lambda: [str(r) for r in roots])
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    buildid.compiler_id.cache_clear()
    yield roots
    buildid.compiler_id.cache_clear()


def _by_hand(roots) -> str:
    """The content digest as the docstring defines it, with os.walk's order."""
    digest = hashlib.sha256(__version__.encode())
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(f for f in files if f.endswith((".py", ".h", ".c"))):
                path = os.path.join(folder, name)
                digest.update(os.path.relpath(path, root).encode() + b"\0")
                with open(path, "rb") as f:
                    digest.update(f.read())
    return digest.hexdigest()[:16]


def _edit(path, text: str) -> None:
    """Rewrite ``path``, its modification time a millisecond on (the kernel's file clock is
    coarser than that: two writes in one tick may carry the same time)."""
    before = os.stat(path)
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))


def test_the_identity_is_the_content_digest_and_a_new_process_reads_no_source(package, monkeypatch):
    first = buildid.compiler_id()
    assert first == _by_hand(package)
    buildid.compiler_id.cache_clear()  # as a new process finds it

    def unread(*args):
        raise AssertionError("the files were read again")

    monkeypatch.setattr(buildid, "_content_digest", unread)
    assert buildid.compiler_id() == first


def test_an_edit_of_the_same_size_makes_a_new_identity(package):
    first = buildid.compiler_id()
    _edit(package[1] / "sub" / "b.c", "int c;\n")
    buildid.compiler_id.cache_clear()
    assert buildid.compiler_id() == _by_hand(package) != first


def test_an_installed_copy_keeps_one_entry_and_a_damaged_one_is_hashed_again(package, tmp_path):
    first = buildid.compiler_id()
    _edit(package[0] / "a.py", "x = 2\n")
    buildid.compiler_id.cache_clear()
    second = buildid.compiler_id()
    entries = list((tmp_path / "cache" / "warm-v1" / "buildid").iterdir())
    assert len(entries) == 1 and second != first
    stamp = entries[0].read_bytes().split()[0]
    for damaged in (b"", stamp + b" not-a-digest", stamp + b" " + first.encode()[:8]):
        entries[0].write_bytes(damaged)
        buildid.compiler_id.cache_clear()
        assert buildid.compiler_id() == second == _by_hand(package)
