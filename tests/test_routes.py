"""How a compiled function's calls reach their path (astcompile/jit/routes.py): a function made
before the C call path's extension was loaded takes it, through its stand-in, once it is, and its
calls then run in C as those of a function made after; and no call waits for that build."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import astcompile
from astcompile import config
from astcompile.jit.function import CompiledFunction
from astcompile.runtime import fastcall, fpflags
from tests.test_sole_region import _our_frames


def weighted(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * w
    return s


@pytest.fixture
def made_before(monkeypatch, tmp_path):
    """``made_before(fn)``: ``fn`` compiled and called while the extension is not loaded (a
    new process on an empty cache), then the extension loaded, as its build ends."""
    built_in = config.cache_dir
    assert fastcall.extension(built_in) is not None, "gcc and Python headers are here"

    def make(fn, plain=False):
        monkeypatch.setattr(fastcall, "_state", {})
        for name in ("clear", "raised"):  # the load below sets its own module's: restored
            monkeypatch.setattr(fpflags, name, getattr(fpflags, name))
        monkeypatch.setattr(fastcall, "_listeners", [], raising=False)
        monkeypatch.setattr(config, "cache_dir", str(tmp_path / "empty"))
        compiled = astcompile.compile(fn, backend="c")
        x = np.linspace(0.0, 1.0, 32)
        for _ in range(3):
            assert compiled(x, 2.0) == fn(x, 2.0)
        assert not hasattr(compiled, "current_route")
        assert _our_frames(lambda: compiled(x, 2.0)) == ["__call__"]
        if plain:  # measuring chose the plain path before the load
            compiled.run_plain()
        monkeypatch.setattr(config, "cache_dir", built_in)
        assert fastcall.extension(built_in) is not None  # tells what waited for it
        return compiled

    return make


def test_a_function_made_before_the_extension_runs_in_c_once_it_is_loaded(made_before):
    f = made_before(weighted)
    x = np.linspace(0.0, 1.0, 32)
    assert isinstance(type(f).__call__, fastcall.loaded().Switch)
    before = f._tier.countdown
    assert _our_frames(lambda: f(x, 2.0)) == []  # no __call__ in Python any more
    assert f._tier.countdown == before - 1  # still counted, by the same tier
    assert f(x, 3.0) == weighted(x, 3.0) and f(x[:5], 2.0) == weighted(x[:5], 2.0)
    assert isinstance(f, CompiledFunction) and repr(f) == "<astcompile compiled function weighted>"


def test_a_stand_in_keeps_paths_reset_verify_and_pickling(made_before, monkeypatch):
    f = made_before(weighted)
    x = np.linspace(0.0, 1.0, 32)
    f.run_plain()  # measuring chose the plain path: the user's function, nothing of ours
    assert type(f).__call__ is weighted and _our_frames(lambda: f(x, 2.0)) == []
    f.run_measured()
    assert isinstance(type(f).__call__, fastcall.loaded().Switch)
    f.reset()
    assert f._sole_region is None
    assert f(x, 2.0) == weighted(x, 2.0) and f._sole_region is not None
    assert all(region.owner is f for region in f.regions)  # built on f, not on its stand-in
    monkeypatch.setattr(config, "verify", True)  # read at each call, in C too
    assert "__call__" in _our_frames(lambda: f(x, 2.0))
    monkeypatch.setattr(config, "verify", False)
    again = pickle.loads(pickle.dumps(f))
    assert type(again).__name__ == "CompiledFunction" and again(x, 2.0) == weighted(x, 2.0)


def test_a_function_with_a_stand_in_is_reset_from_another_thread(made_before):
    f = made_before(weighted)
    x = np.linspace(0.0, 1.0, 32)
    stop, wrong = threading.Event(), []

    def resets():
        while not stop.is_set():
            f.reset()

    thread = threading.Thread(target=resets)
    thread.start()
    try:
        for i in range(300):
            if f(x, float(i)) != weighted(x, float(i)):
                wrong.append(i)
    finally:
        stop.set()
        thread.join()
    assert not wrong
    assert f(x, 2.0) == weighted(x, 2.0) and f._sole_region is not None


def test_a_function_on_the_plain_path_as_the_extension_loads_is_reset_whole(made_before):
    """Its region was the stand-in's while its class was still the one before: ``reset`` set
    None in a ``__dict__`` its calls never read, and the old region ran on."""
    f = made_before(weighted, plain=True)
    x = np.linspace(0.0, 1.0, 32)
    old = f._sole_region
    assert old is not None and type(f).__call__ is weighted
    f.reset()
    assert f._sole_region is None
    assert f(x, 2.0) == weighted(x, 2.0) and f._sole_region not in (None, old)


_NEW_PROCESS = textwrap.dedent(
    """
    import threading
    import numpy as np
    import astcompile
    from astcompile.runtime import fastcall, fpflags

    built_by = []
    load_or_build = fastcall._load_or_build

    def recorded(cache_dir, build_it):
        module = load_or_build(cache_dir, build_it)
        if build_it:
            built_by.append(threading.current_thread().name)
        return module

    fastcall._load_or_build = recorded

    def weighted(x, w):
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i] * w
        return s

    f = astcompile.compile(weighted, backend="c")
    x = np.linspace(0.0, 1.0, 256)
    for _ in range(3 * fastcall.PROMOTE_AFTER):
        assert f(x, 2.0) == weighted(x, 2.0)
    if "building" in fastcall._state:
        fastcall._state["building"].join(120)
    for _ in range(50):
        assert f(x, 2.0) == weighted(x, 2.0)
    print(built_by, isinstance(type(f).__call__, fastcall.loaded().Switch))
    """
)


def test_a_new_process_builds_the_extension_outside_its_calls(tmp_path):
    """A new process on an empty cache: its calls never run the extension's compiler (a
    background thread does), and its function, made before, runs through the extension."""
    env = {**os.environ, "ASTCOMPILE_COMPILE_BUDGET": "inf"}
    env["ASTCOMPILE_CACHE_DIR"] = str(tmp_path / "cache")
    program = tmp_path / "program.py"
    program.write_text(_NEW_PROCESS)
    done = subprocess.run(
        [sys.executable, str(program)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['astcompile-fastcall-build']", "True"], done.stdout
