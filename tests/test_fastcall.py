"""The C-level call path of flat regions (runtime/fastcall.py, runtime/fastcall.c): it runs
exactly what the Python guard function and wrapper would, and anything else goes to them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from differential import runtime_warnings

import astcompile
from astcompile.runtime import build, cache, fastcall, fpflags, trust
from astcompile.runtime.errors import CompilerNotFound
from tests.trust_helpers import gone, hanging_compiler, started

SCALE = 3.0


def fma(a, b, c):
    return a * b + c


def axpy(alpha, x, y):
    return alpha * x + y


def scaled(x):
    return x * SCALE


def rowmax(x):
    return np.max(x, axis=1) + 1.0


def _compiled(fn):
    return astcompile.compile(fn, backend="c")


def _region(compiled):
    (region,) = compiled.regions
    return region


def _guarded_by_c(compiled, fast) -> bool:
    module = fastcall.loaded()  # the one the region got (a test may have loaded it anew)
    return module is not None and isinstance(_region(compiled).guards, module.Guards)


def test_runs_in_c_with_numpy_results(fast):
    rng = np.random.default_rng(0)
    a, b, c = (rng.random(8) for _ in range(3))
    f = _compiled(fma)
    first = f(a, b, c)
    assert _guarded_by_c(f, fast)
    before = _region(f).stats.compiled_calls
    out = f(a, b, c)
    assert _region(f).stats.compiled_calls == before + 1
    np.testing.assert_array_equal(out, a * b + c)
    np.testing.assert_array_equal(first, out)
    assert out is not first and not any(np.shares_memory(out, x) for x in (a, b, c))


@pytest.mark.parametrize(
    "args",
    [
        lambda r: (r.random(8), r.random(8), r.random(8)),
        lambda r: (r.random(50_000), r.random(50_000), r.random(50_000)),  # frees the GIL
        lambda r: (r.random(0), r.random(0), r.random(0)),
        lambda r: (r.random(1), r.random(1), r.random(1)),
        lambda r: (r.random((3, 4)), r.random((3, 4)), r.random(4)),
        lambda r: (r.random(8).astype(np.float32), r.random(8), r.random(8)),
        lambda r: (r.random(16)[::2], r.random(8), r.random(8)),  # strided: Python path
        lambda r: (np.asfortranarray(r.random((3, 4))), r.random((3, 4)), r.random((3, 4))),
        lambda r: (np.arange(8), np.arange(8), 2),
    ],
)
def test_same_results_as_numpy_for_each_kind_of_call(fast, args):
    rng = np.random.default_rng(1)
    f = _compiled(fma)
    f(*args(rng))  # a first entry, then the call under test through the guards
    call = args(rng)
    out = f(*call)
    expected = fma(*call)
    assert out.dtype == expected.dtype and out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)


def test_same_array_twice_and_new_shapes_recompile_as_before(fast):
    f = _compiled(fma)
    a = np.arange(6.0)
    f(a, a + 1, a + 2)
    region = _region(f)
    np.testing.assert_array_equal(f(a, a, a), a * a + a)  # aliased: another entry
    entries = region._count()
    np.testing.assert_array_equal(f(a[:5], a[:5] + 1, a[:5] + 2), fma(a[:5], a[:5] + 1, a[:5] + 2))
    assert region._count() == entries  # size 5 is in the same class as 6: no recompile
    f(a.astype(np.float32), a + 1, a + 2)
    assert region._count() == entries + 1  # a dtype change recompiles, as before


def test_mismatched_shapes_raise_numpys_error(fast):
    f = _compiled(fma)
    a = np.arange(8.0)
    f(a, a + 1, a + 2)
    with pytest.raises(ValueError) as compiled_error:
        f(a, np.arange(7.0), a + 2)
    with pytest.raises(ValueError) as plain_error:
        fma(a, np.arange(7.0), a + 2)
    assert str(compiled_error.value) == str(plain_error.value)


def test_scalars_and_their_classes(fast):
    f = _compiled(axpy)
    x, y = np.arange(5.0), np.ones(5)
    f(2.0, x, y)
    assert _guarded_by_c(f, fast)
    np.testing.assert_array_equal(f(-0.5, x, y), -0.5 * x + y)
    np.testing.assert_array_equal(f(3, x, y), 3 * x + y)  # an int: another entry
    xi = np.arange(5, dtype=np.int32)
    np.testing.assert_array_equal(f(7, xi, xi), 7 * xi + xi)
    with pytest.raises(OverflowError) as compiled_error:
        f(2**40, xi, xi)  # beyond int32: NumPy's NEP 50 error, as before
    with pytest.raises(OverflowError) as plain_error:
        axpy(2**40, xi, xi)
    assert str(compiled_error.value) == str(plain_error.value)


def test_empty_rows_of_a_max_raise_as_numpy(fast):
    f = _compiled(rowmax)
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(f(x), rowmax(x))
    np.testing.assert_array_equal(f(x + 1), rowmax(x + 1))
    with pytest.raises(ValueError):
        rowmax(np.zeros((3, 0)))
    with pytest.raises(ValueError):
        f(np.zeros((3, 0)))


def test_errstate_raise_still_raises(fast):
    f = _compiled(fma)
    a = np.arange(4.0)
    f(a, a, a)
    huge = np.full(4, 1e308)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        f(huge, huge, a)


def reciprocal(x):
    return 1.0 / x + 1.0


def test_floating_point_flags_go_through_the_extension(fast):
    """Loaded, the extension clears and tests the flags (tens of ns, not two cffi calls): the
    same flags, and compiled code run by its Guards warns as NumPy does."""
    assert (fpflags.clear, fpflags.raised) == (fast.fp_clear, fast.fp_raised)
    huge = 1e300
    fpflags.clear()
    assert huge * huge == np.inf and fpflags.kinds(fpflags.raised()) == ["over"]
    fpflags.clear()
    assert fpflags.raised() == 0
    f, x = _compiled(reciprocal), np.array([1.0, 0.0])
    f(np.ones(2))
    assert _guarded_by_c(f, fast)
    assert runtime_warnings(f, x) == runtime_warnings(reciprocal, x) != []


def test_globals_read_by_the_region_stay_guarded(fast, monkeypatch):
    module = __import__(__name__)
    f = _compiled(scaled)
    x = np.arange(4.0)
    np.testing.assert_array_equal(f(x), x * 3.0)
    assert _guarded_by_c(f, fast)  # the global is checked in C
    monkeypatch.setattr(module, "SCALE", 5.0)
    np.testing.assert_array_equal(f(x), x * 5.0)
    monkeypatch.setattr(module, "SCALE", 5)  # an int now: another entry
    np.testing.assert_array_equal(f(x), x * 5)
    monkeypatch.delattr(module, "SCALE")
    with pytest.raises(NameError):
        f(x)


def ones_of(x, k):
    return x * 2.0 + np.ones(k)


def test_value_guards_and_numpy_reads_run_in_c(fast):
    f = _compiled(ones_of)
    for k in (3, 4, 3, 2, 4):
        x = np.arange(float(k))
        np.testing.assert_array_equal(f(x, k), ones_of(x, k))
    assert _guarded_by_c(f, fast) and _region(f)._count() == 3
    with pytest.raises(ValueError) as compiled_error:
        f(np.arange(3.0), 4)
    with pytest.raises(ValueError) as plain_error:
        ones_of(np.arange(3.0), 4)
    assert str(compiled_error.value) == str(plain_error.value)


def test_a_cached_extension_is_taken_at_once(monkeypatch, fast):
    monkeypatch.setattr(fastcall, "_state", {})
    assert fastcall.extension(astcompile.config.cache_dir) is not None  # in this cache now
    monkeypatch.setattr(fastcall, "_state", {})  # a new process
    f = _compiled(fma)
    a = np.arange(4.0)
    f(a, a + 1, a + 2)
    assert _guarded_by_c(f, fast)


def _built() -> None:
    """Return once the background build of the extension is done (and what waited told)."""
    fastcall._state["building"].join(60)


def test_promotes_after_many_calls(monkeypatch, fast, tmp_path):
    """The region's PROMOTE_AFTER-th compiled call asks for the extension and returns without
    waiting for it; once it is built in the background, the C path stands in front."""
    monkeypatch.setattr(fastcall, "_state", {})
    monkeypatch.setattr(fastcall, "_listeners", [], raising=False)
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))  # not built there yet
    monkeypatch.setattr(fastcall, "PROMOTE_AFTER", 3)
    f = _compiled(fma)
    a = np.arange(4.0)
    f(a, a + 1, a + 2)
    assert not _guarded_by_c(f, fast)
    for _ in range(3):
        f(a, a + 1, a + 2)
    assert not fastcall.tried() and not _guarded_by_c(f, fast)  # no call built it
    _built()
    assert _guarded_by_c(f, fast)
    np.testing.assert_array_equal(f(a, a + 1, a + 2), fma(a, a + 1, a + 2))


def test_promotion_makes_measuring_compare_again(monkeypatch, fast, tmp_path):
    """Measuring may have chosen plain against the slower Python path: once the C path is in,
    the function compares its paths again."""
    monkeypatch.setattr(fastcall, "_state", {})
    monkeypatch.setattr(fastcall, "_listeners", [], raising=False)
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))
    monkeypatch.setattr(fastcall, "PROMOTE_AFTER", 3)
    f = _compiled(fma)
    compared: list = []
    monkeypatch.setattr(f, "compare_again", lambda cheaper=False: compared.append(1))
    a = np.arange(4.0)
    for _ in range(4):
        f(a, a + 1, a + 2)
    _built()
    assert _guarded_by_c(f, fast) and compared


def test_falls_back_when_it_cannot_be_built(monkeypatch):
    def no_compiler() -> str:
        raise CompilerNotFound("none here")

    monkeypatch.setattr(fastcall, "_state", {})
    monkeypatch.setattr(build, "find_compiler", no_compiler)
    assert fastcall.extension(astcompile.config.cache_dir) is None
    monkeypatch.undo()
    monkeypatch.setattr(fastcall, "_state", {"module": None})
    f = _compiled(fma)
    a = np.arange(4.0)
    for _ in range(4):
        np.testing.assert_array_equal(f(a, a + 1, a + 2), fma(a, a + 1, a + 2))
    assert callable(_region(f).guards) and hasattr(_region(f).guards, "py_source")


def test_malformed_programs_are_refused(fast):
    with pytest.raises(ValueError, match="malformed"):
        fast.Guards([(np.asarray([99], np.int64).tobytes(), (), 0)], print, None, {})


def _with_self(self, *args, **kwargs):
    return self, args, kwargs


def test_a_switch_runs_its_route_with_or_without_itself(fast):
    """``route(target, bind)``: a call runs ``target(*args)``, or ``target(self, *args)``,
    keywords included, through vectorcall and through a plain ``__call__`` (no spare slot in
    front of the arguments), with few arguments and with more than fit on the stack."""
    s = fast.Switch()
    with pytest.raises(TypeError, match="before its route was set"):
        s()
    s.route(_with_self, True)
    many = tuple(range(12))
    assert s(1, k=2) == (s, (1,), {"k": 2})
    assert s.__call__(1, k=2) == (s, (1,), {"k": 2})
    assert s.__call__(*many, k=2) == (s, many, {"k": 2})
    s.route(_with_self, False)
    assert s(1, 2, k=3) == (1, (2,), {"k": 3}) and s.current_route is _with_self
    with pytest.raises(TypeError, match="must be callable"):
        s.route(3, False)
    owner = object()  # a stand-in's (jit/routes.py): the owner goes first, not the Switch
    s.route(_with_self, True, None, None, owner)
    assert s(1, k=2) == (owner, (1,), {"k": 2}) and s.__call__(*many) == (owner, many, {})
    with pytest.raises(TypeError, match="needs a bound route"):
        s.route(_with_self, False, None, None, owner)


def test_a_switch_survives_its_route_changing_during_the_call(fast):
    s = fast.Switch()

    def reroute(x):
        s.route(abs, False)  # the only reference to this closure was the route
        return x + 1

    s.route(reroute, False)
    assert s(1) == 2 and s(-3) == 3


def test_a_switch_binds_as_a_method_and_is_collected(fast):
    import gc
    import weakref

    class Owner:
        pass

    class Routed(fast.Switch):  # a subclass, as compiled functions are: weakly referenceable
        pass

    s = Routed()
    s.route(_with_self, False)
    Owner.f = s
    o = Owner()
    assert o.f(1) == (o, (1,), {}) and o.f.__self__ is o and o.f.__func__ is s
    assert Owner.f is s
    s.route(s.__call__, False)  # a cycle through the route
    ref = weakref.ref(s)
    del s, Owner.f
    gc.collect()
    assert ref() is None


def test_a_plain_choice_builds_the_extension_for_later_functions(tmp_path, monkeypatch):
    """A function made before the extension is loaded switches classes; its first plain
    choice builds the extension in the background, and functions made after that are
    routed (a later process finds it in the cache at once)."""
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))
    monkeypatch.setattr(fastcall, "_state", {})
    before = astcompile.compile(fma)
    assert not hasattr(before, "current_route")
    before.settle(plain=True)  # what measuring does when it chooses the plain path
    fastcall._state["building"].join(60)
    module = fastcall.loaded()
    assert module is not None
    after = astcompile.compile(fma)
    assert isinstance(after, module.Switch) and not isinstance(before, module.Switch)
    a = np.arange(3.0)
    np.testing.assert_array_equal(after(a, a, a), fma(a, a, a))
    np.testing.assert_array_equal(before(a, a, a), fma(a, a, a))


def test_a_cache_folder_set_after_the_first_function_is_looked_in(tmp_path, monkeypatch, fast):
    """The first compiled function looks for the extension in the cache folder of the moment;
    a program that sets ``config.cache_dir`` after that still gets it from its own folder."""
    built_in = astcompile.config.cache_dir  # where ``fast`` built it
    monkeypatch.setattr(fastcall, "_state", {})
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "empty"))
    before = astcompile.compile(fma)
    monkeypatch.setattr(astcompile.config, "cache_dir", built_in)
    after = astcompile.compile(fma)
    assert not hasattr(before, "current_route") and hasattr(after, "current_route")


def test_a_hanging_compiler_holds_no_call(tmp_path, monkeypatch):
    """The kernels build; the extension's compiler hangs. The call that asks for it (the
    region's PROMOTE_AFTER-th compiled call) does not wait for it; the build is killed at the
    kernels' timeout, with the compiler's whole group, and the region runs on its Python path."""
    cc, pids = hanging_compiler(tmp_path, "*-fno-strict-aliasing*")  # the extension's flags
    monkeypatch.setenv("CC", cc)
    monkeypatch.setattr(fastcall, "_state", {})
    monkeypatch.setattr(fastcall, "_listeners", [], raising=False)
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    monkeypatch.setattr(astcompile.config, "build_timeout", 2.0)
    f = _compiled(fma)
    a = np.arange(4.0)
    f(a, a + 1, a + 2)  # the kernels' build
    slowest = 0.0
    for _ in range(fastcall.PROMOTE_AFTER + 5):
        start = time.perf_counter()
        np.testing.assert_array_equal(f(a, a + 1, a + 2), fma(a, a + 1, a + 2))
        slowest = max(slowest, time.perf_counter() - start)
    assert slowest < 1.0
    _built()
    assert len(started(pids)) == 2, "the extension's build never ran"
    assert all(gone(pid) for pid in started(pids))
    assert fastcall.tried() and fastcall.loaded() is None  # not asked for again
    assert not any(n.startswith(".build") for n in os.listdir(tmp_path / "cache" / "c-v1"))
    np.testing.assert_array_equal(f(a, a + 1, a + 2), fma(a, a + 1, a + 2))


_EXITS = """
import sys, time
from astcompile.runtime import fastcall
fastcall.build_in_background(sys.argv[1])
while len(open(sys.argv[2]).read().split()) < 2:
    time.sleep(0.05)
"""


def test_exit_stops_a_background_build(tmp_path):
    """A program that ends while the extension builds in the background exits at once, and
    the compiler goes with it (with no timeout to end it)."""
    cc, pids = hanging_compiler(tmp_path)
    with open(pids, "w"):
        pass
    env = {**os.environ, "CC": cc, "ASTCOMPILE_BUILD_TIMEOUT": "0"}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _EXITS, str(tmp_path / "cache"), pids],
        env=env,
        timeout=120,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert time.perf_counter() - start < 30
    assert len(started(pids)) == 2 and all(gone(pid) for pid in started(pids))


PLANTED_LIB = '#include <stdio.h>\n__attribute__((constructor)) static void ran(void) {{ fclose(fopen("{marker}", "w")); }}\n'


def _plant_extension(tmp_path, cache_dir, marker) -> tuple[str, str, str]:
    """A library whose constructor creates ``marker``, where the extension would be: (its
    cache folder, the extension's key, the library's path)."""
    compiler = build.find_compiler()
    key = "fastcall-" + fastcall._key(compiler, fastcall._headers())
    entries = cache.ensure_cache_dir(str(cache_dir))
    lib = os.path.join(entries, key + ".so")
    build.compile_shared(PLANTED_LIB.format(marker=marker), lib, str(tmp_path), compiler, libs=())
    return entries, key, lib


@pytest.mark.parametrize("planted", ["record of another file", "group-writable", "a link"])
def test_a_planted_extension_is_never_loaded(tmp_path, monkeypatch, planted):
    """A library in place of the extension runs code the moment it is loaded (its
    constructor): it is loaded only when it passes the trust rules and has the SHA-256 its
    record holds; otherwise the extension is built afresh over it."""
    import hashlib
    import json

    marker, cache_dir = tmp_path / "ran", tmp_path / "cache"
    monkeypatch.setattr(fastcall, "_state", {})
    entries, key, lib = _plant_extension(tmp_path, cache_dir, marker)
    data = Path(lib).read_bytes()
    record = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    if planted == "record of another file":
        record["sha256"] = hashlib.sha256(b"the extension").hexdigest()
    elif planted == "group-writable":
        os.chmod(lib, 0o775)
    else:
        os.replace(lib, tmp_path / "elsewhere.so")
        os.symlink(tmp_path / "elsewhere.so", lib)
    with open(os.path.join(entries, key + ".json"), "w") as f:
        json.dump(record, f)
    trust.forget()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the refusal says why, once
        module = fastcall.extension(str(cache_dir))
    assert module is not None and not marker.exists()
    assert not os.path.islink(lib) and cache.lookup(entries, key) == lib


def test_the_planted_library_of_those_tests_would_run(tmp_path, monkeypatch):
    """The control: passing the rules with its true SHA-256 (only its owner could write that
    record), the same library is loaded, and its constructor runs."""
    marker, cache_dir = tmp_path / "ran", tmp_path / "cache"
    monkeypatch.setattr(fastcall, "_state", {})
    entries, key, lib = _plant_extension(tmp_path, cache_dir, marker)
    size, sha = cache.file_digest(lib)
    Path(entries, key + ".json").write_text(f'{{"size": {size}, "sha256": "{sha}"}}')
    fastcall.extension(str(cache_dir))
    assert marker.exists()
