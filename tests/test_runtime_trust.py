"""The trust rules for folders and files compiled code is loaded from, and what the caches
create (runtime/trust.py)."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess

import pytest

from astcompile.runtime import UnsafeCacheDir, artifacts, trust
from tests.trust_helpers import other_uid


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_every_folder_from_the_base_down_is_checked(tmp_path):
    base = tmp_path / "cache"
    (base / "a" / "b").mkdir(parents=True)
    trust.check_folder(str(base / "a" / "b"), str(base))
    os.chmod(base / "a", 0o775)  # a group-writable level in the middle
    with pytest.raises(UnsafeCacheDir, match=r"a is writable by its group .*chmod go-w"):
        trust.check_folder(str(base / "a" / "b"), str(base))
    with pytest.raises(FileNotFoundError):
        trust.check_folder(str(base / "missing"), str(base))
    assert trust.trusted_folder(str(base / "missing"), str(base)) is False  # quietly


def test_astcache_parent_must_not_be_writable_by_others(tmp_path):
    package = tmp_path / "pkg"
    (package / "__astcache__").mkdir(parents=True)
    trust.check_folder(str(package / "__astcache__"), str(package / "__astcache__"), parent=True)
    os.chmod(package, 0o777)
    with pytest.raises(UnsafeCacheDir, match="pkg is writable by group and others"):
        trust.check_folder(
            str(package / "__astcache__"), str(package / "__astcache__"), parent=True
        )


def test_files_of_another_user_are_refused_with_one_warning(tmp_path):
    uid = other_uid()
    path = tmp_path / "entry.pkl"
    path.write_bytes(b"data")
    os.chmod(path, 0o644)
    assert trust.read_file(str(path)) == b"data"
    os.chown(path, uid, -1)
    trust.forget()
    with pytest.warns(RuntimeWarning, match=f"owned by uid {uid}, neither you"):
        assert trust.read_file(str(path)) is None
    assert trust.read_file(str(path)) is None  # warned once per path
    assert trust.matches(str(path), 4, hashlib.sha256(b"data").hexdigest()) is False


def test_group_writable_file_is_refused(tmp_path):
    path = tmp_path / "k.so"
    path.write_bytes(b"\x7fELF")
    os.chmod(path, 0o664)
    digest = hashlib.sha256(b"\x7fELF").hexdigest()
    with pytest.warns(RuntimeWarning, match="writable by its group"):
        assert trust.matches(str(path), 4, digest) is False
    os.chmod(path, 0o644)
    assert trust.matches(str(path), 4, digest) is True
    assert trust.matches(str(path), 4, hashlib.sha256(b"\x7fELG").hexdigest()) is False


def test_a_link_in_place_of_a_file_is_refused_even_to_our_own_file(tmp_path):
    target = tmp_path / "ours.pkl"
    target.write_bytes(b"data")
    link = tmp_path / "entry.pkl"
    link.symlink_to(target)
    with pytest.warns(RuntimeWarning, match="entry.pkl is a symbolic link"):
        assert trust.read_file(str(link)) is None
    trust.write_file(str(link), b"new", 0o600)  # rewriting the entry replaces the link itself
    assert not link.is_symlink() and link.read_bytes() == b"new"
    assert target.read_bytes() == b"data"


def test_a_fifo_or_a_folder_in_place_of_a_file_is_absent_and_never_blocks(tmp_path):
    fifo, folder = tmp_path / "entry.pkl", tmp_path / "k.so"
    os.mkfifo(fifo, 0o600)  # open() for reading would wait for a writer forever
    (folder / "inside").mkdir(parents=True)
    for path in (fifo, folder):
        assert trust.read_file(str(path)) is None
        with pytest.raises(trust.NotAFile):
            trust.read_checked(str(path))
        trust.write_file(str(path), b"rebuilt", 0o600)
        assert path.is_file() and path.read_bytes() == b"rebuilt"


def test_own_source_replaces_whatever_the_file_holds(tmp_path):
    path = tmp_path / "module.py"
    assert trust.own_source(str(path), "x = 1\n", 0o600) == b"x = 1\n"
    path.write_text("import os; os.system('planted')\n")
    assert trust.own_source(str(path), "x = 1\n", 0o600) == b"x = 1\n"
    assert path.read_text() == "x = 1\n" and _mode(path) == 0o600


def test_leftovers_name_their_owner(tmp_path):
    mine = trust.leftover_prefix(".build") + "abc"
    assert not trust.owner_gone(mine)  # this process
    dead = subprocess.Popen(["true"])
    dead.wait()
    assert trust.owner_gone(mine.replace(f"-{os.getpid()}-", f"-{dead.pid}-"))
    assert not trust.owner_gone(".build-abc123")  # another form: unsure, waits its grace
    assert not trust.owner_gone(f".build-{dead.pid}-otherhost-abc")


def test_created_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        root = trust.cache_root(str(tmp_path / "cache"), ("c-v1", "warm-v1/regions"))
        store = artifacts.user_store(root)
        store.write("regions", "x.pkl", b"entry")
    finally:
        os.umask(old)
    assert root == str(tmp_path / "cache")
    assert {_mode(tmp_path / "cache" / p) for p in ("", "c-v1", "warm-v1", "warm-v1/regions")} == {
        0o700
    }
    assert _mode(store.path("regions", "x.pkl")) == 0o600


def test_package_store_is_readable_by_all_and_writable_by_its_owner(tmp_path):
    old = os.umask(0o077)
    try:
        store = artifacts.package_store(str(tmp_path))
        store.write("frontend", "f.json", b"{}")
        lib = tmp_path / "built.so"
        lib.write_bytes(b"\x7fELF library")
        name, size, sha = store.add_library(str(lib))
    finally:
        os.umask(old)
    assert _mode(store.root) == _mode(os.path.dirname(store.path("frontend", "f.json"))) == 0o755
    assert _mode(store.path("frontend", "f.json")) == 0o644
    assert _mode(os.path.join(store.kernels, name)) == 0o755
    assert store.library(name, size, sha) == (os.path.join(store.kernels, name), "")
    assert "SHA-256 differ" in store.library(name, size, "0" * 64)[1]


def test_uncreatable_cache_dir_falls_back_to_a_private_temporary_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    wanted = str(blocker / "cache")
    with pytest.warns(RuntimeWarning, match="cannot be created.*ASTCOMPILE_CACHE_DIR"):
        root = trust.cache_root(wanted, ("c-v1",))
    assert root != wanted and _mode(root) == 0o700 and os.path.isdir(os.path.join(root, "c-v1"))
    assert trust.cache_root(wanted, ("c-v1",)) == root  # one folder, one warning, per process
