"""What the Triton target loads from the cache (runtime/triton_runtime.py): the generated module
runs from the source we made, never from a file found in the cache, and Triton's own cache
lives in a private, checked folder. Under Triton's interpreter, as tests/conftest.py sets up."""

from __future__ import annotations

import os
import re
import stat
import sys
import threading

import numpy as np
import pytest
from differential import TRITON, assert_matches

import astcompile
from astcompile.runtime import trust
from tests.trust_helpers import other_uid

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")

X = np.random.default_rng(0).standard_normal((5, 9))
PAYLOAD = "open({marker!r}, 'w').close()\n"


def softmax(x):
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache folder holding the module of ``softmax``, no longer loaded in this process."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    folder = tmp_path / "cache"
    monkeypatch.setattr(astcompile.config, "cache_dir", str(folder))
    _forget_modules()  # made by an earlier test: this one writes it
    astcompile.compile(softmax, backend="triton")(X)
    _forget_modules()
    trust.forget()
    return folder


def _forget_modules() -> None:
    """As a new process: no generated module imported (the hand-written matmul stays)."""
    for name in [n for n in sys.modules if re.fullmatch(r"astcompile_triton_[0-9a-f]{20}_\w+", n)]:
        del sys.modules[name]
    astcompile.reset()


def _modules(cache) -> list:
    return sorted((cache / "triton").glob("astcompile_triton_*.py"))


def _plant(path, marker) -> None:
    path.unlink()
    path.write_text(PAYLOAD.format(marker=str(marker)))


def _runs_clean(cache, marker) -> None:
    got = astcompile.compile(softmax, backend="triton")(X)
    assert not marker.exists(), "the planted module ran"
    assert_matches(got, softmax(X))


def test_a_module_with_other_content_is_overwritten_never_run(cache, tmp_path):
    """Even a file that passes every owner and mode rule: only the bytes we generated run."""
    marker = tmp_path / "ran"
    (module,) = _modules(cache)
    _plant(module, marker)
    os.chmod(module, 0o600)
    _runs_clean(cache, marker)
    assert "open(" not in module.read_text()  # the kept file is the source again


def test_a_linked_module_is_replaced(cache, tmp_path):
    marker, elsewhere = tmp_path / "ran", tmp_path / "payload.py"
    elsewhere.write_text(PAYLOAD.format(marker=str(marker)))
    (module,) = _modules(cache)
    module.unlink()
    module.symlink_to(elsewhere)
    with pytest.warns(RuntimeWarning, match="is a symbolic link"):
        _runs_clean(cache, marker)
    assert not module.is_symlink()


@pytest.mark.parametrize("loose", ["the cache root", "the triton folder"])
def test_a_cache_others_can_write_is_not_used(cache, tmp_path, loose):
    """The C target's rule for every target: a folder others can write is refused, and the
    module goes to a private temporary folder instead (the planted file is not even read)."""
    marker = tmp_path / "ran"
    (module,) = _modules(cache)
    _plant(module, marker)
    os.chmod(cache if loose == "the cache root" else cache / "triton", 0o777)
    with pytest.warns(RuntimeWarning, match="not using the cache folder"):
        _runs_clean(cache, marker)
    assert not os.environ["TRITON_CACHE_DIR"].startswith(str(cache))
    assert "open(" in module.read_text()  # untouched: nothing is written in a refused folder


def test_a_module_of_another_user_is_replaced(cache, tmp_path):
    uid = other_uid()
    marker = tmp_path / "ran"
    (module,) = _modules(cache)
    _plant(module, marker)
    os.chown(module, uid, -1)
    with pytest.warns(RuntimeWarning, match=f"owned by uid {uid}"):
        _runs_clean(cache, marker)
    assert os.stat(module).st_uid == os.getuid()


def test_a_fifo_in_place_of_the_module_is_replaced(cache, tmp_path):
    (module,) = _modules(cache)
    module.unlink()
    os.mkfifo(module, 0o600)  # reading it would wait for a writer forever
    _runs_clean(cache, tmp_path / "ran")
    assert module.is_file()


def test_modules_and_tritons_cache_are_private(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    _forget_modules()
    old = os.umask(0)
    try:
        astcompile.compile(softmax, backend="triton")(X)
    finally:
        os.umask(old)
    triton = tmp_path / "cache" / "triton"
    assert os.environ["TRITON_CACHE_DIR"] == str(triton / "cache")
    modes = {stat.S_IMODE(os.stat(p).st_mode) for p in (triton, triton / "cache")}
    assert modes == {0o700}
    assert {stat.S_IMODE(os.stat(p).st_mode) for p in _modules(tmp_path / "cache")} == {0o600}


def test_a_triton_cache_the_user_chose_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "theirs"))
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    astcompile.compile(softmax, backend="triton")(X)
    assert os.environ["TRITON_CACHE_DIR"] == str(tmp_path / "theirs")


def _sine_plus_sum(x):
    return np.sin(x) * 2 + x.sum()


def test_threads_interpreting_kernels_at_once_take_turns(monkeypatch):
    """Eight threads call one compiled function with eight dtypes at once (eight kernels):
    Triton's interpreter patches ``triton.language`` for the kernel it runs, so two at once
    failed ("Did you forget to add @triton.jit?")."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(_sine_plus_sum, backend="triton")
    dtypes = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int16, np.int8, np.uint16]
    barrier, failures = threading.Barrier(len(dtypes)), []

    def call(dtype):
        x = (np.arange(100) % 7).astype(dtype)
        barrier.wait()
        try:
            for _ in range(3):
                assert_matches(compiled(x), _sine_plus_sum(x))
        except Exception as exc:  # noqa: BLE001 - reported below, with its thread's dtype
            failures.append((dtype, exc))

    threads = [threading.Thread(target=call, args=(d,)) for d in dtypes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
