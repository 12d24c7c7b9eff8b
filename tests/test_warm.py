"""The warm cache: rewrites and region entries persisted, re-checked and reused."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from differential import assert_matches

import astcompile
from astcompile.frontend import rewrite_cache
from astcompile.jit import warm
from astcompile.runtime import cache, trust
from tests.trust_helpers import flip_byte, other_uid, planted_pickle, truncate

MODULE = textwrap.dedent("""
    import numpy as np
    import astcompile

    W = np.arange(3.0)

    def helper(x):
        return x * 2.0

    def f(x):
        return np.exp(helper(x)) + 1.0

    def uses_global_array(x):
        return x + W
""")


def _module(tmp_path, name: str, text: str = MODULE):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _times(phase: str) -> float:
    return astcompile.compile_times().get(phase, 0.0)


def test_second_compile_loads_rewrite_and_entries(tmp_path):
    mod = _module(tmp_path, "warm_a")
    x = np.linspace(0, 1, 10)
    first = astcompile.compile(mod.f)
    assert_matches(first(x), np.exp(x * 2.0) + 1.0)
    assert first.cache_digest is not None
    analysis = _times("analysis")
    again = astcompile.compile(mod.f)
    assert_matches(again(x), np.exp(x * 2.0) + 1.0)
    assert _times("analysis") == analysis  # the rewrite came from the cache
    assert again.cache_digest == first.cache_digest
    assert again.regions[0].stats.traces == 0  # so did the compiled region


def test_an_edited_callee_makes_the_rewrite_stale(tmp_path):
    mod = _module(tmp_path, "warm_b")
    x = np.linspace(0, 1, 10)
    astcompile.compile(mod.f)(x)
    entry = rewrite_cache.load(mod.f, False, warm.stores_for(mod.f.__code__.co_filename))
    assert entry is not None

    def helper(x):
        print("side effect")
        return x * 3.0

    mod.helper = helper
    assert rewrite_cache.load(mod.f, False, warm.stores_for(mod.f.__code__.co_filename)) is None
    changed = astcompile.compile(mod.f)
    assert_matches(changed(x), np.exp(x * 3.0) + 1.0)
    assert changed.static_breaks  # analysed again: the call now breaks


def test_closures_are_not_persisted_global_arrays_are_read_each_call(tmp_path):
    scale = 2.0

    def closure(x):
        return x * scale

    assert rewrite_cache.function_key(closure, False) is None
    mod = _module(tmp_path, "warm_c")
    compiled = astcompile.compile(mod.uses_global_array)
    x = np.ones(3)
    assert_matches(compiled(x), x + mod.W)
    region = compiled.regions[0]
    assert warm.persistent_key(region, region.key((x,)), (x,)) is not None  # W is an input
    mod.W = np.full(3, 7.0)
    again = astcompile.compile(mod.uses_global_array)
    assert_matches(again(x), x + 7.0)
    assert again.regions[0].stats.traces == 0  # the persisted entry reads W at the call
    from astcompile.jit.entries import MISS

    assert again.regions[0].guards(x) is not MISS  # its generated guards hold, not only bind()


def test_persistent_keys_name_only_what_the_key_holds_by_identity():
    """A key holding nothing by identity is named without walking the arguments (3,000
    polygons of tuples took 40 ms a look-up); what it holds is found however deep, once."""
    looped = [1.0]
    looped.append(looped)  # a list holding itself is opened once
    key = (("list", 2), ("float",))
    assert warm.persistent_key(None, key, (looped,)) == repr(key)
    held = (("list", 1), ("id", id(np.sin)))
    named = (("list", 1), ("obj", warm._identity(np.sin)))
    assert warm.persistent_key(None, held, (looped, [[(np.sin,)]])) == repr(named)
    assert warm.persistent_key(None, held, (looped,)) is None  # not among them: not persisted


CALLEE = textwrap.dedent("""
    K = {k}

    def helper(x):
        return x * K{extra}
""")

CALLER = textwrap.dedent("""
    import consts_callee

    def f(x):
        return consts_callee.helper(x) + 1.0
""")


def test_edits_on_disk_are_seen_by_a_new_process(tmp_path):
    """A constant edited in a callee's module, then the callee's code: each new process
    computes with what is on disk now, never with what a warm entry was built from."""
    (tmp_path / "consts_caller.py").write_text(CALLER)
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, astcompile, consts_caller
        f = astcompile.compile(consts_caller.f)
        print(f(np.arange(3.0)).tolist(), f.regions[0].stats.traces)
    """)
    env = {
        **_env(),
        "ASTCOMPILE_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    outputs = []
    for k, extra in (("2.0", ""), ("2.0", ""), ("5.0", ""), ("5.0", " - 1.0")):
        (tmp_path / "consts_callee.py").write_text(CALLEE.format(k=k, extra=extra))
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        outputs.append(run.stdout.split("]"))
    values = [o[0] + "]" for o in outputs]
    assert values == ["[1.0, 3.0, 5.0]", "[1.0, 3.0, 5.0]", "[1.0, 6.0, 11.0]", "[0.0, 5.0, 10.0]"]
    traces = [int(o[1]) for o in outputs]
    assert traces[1] == 0 and traces[2] == 0  # warm: the new K is an input, not a new trace


EDITED_LATER = textwrap.dedent("""
    import os, sys, warnings
    sys.path.insert(0, {folder!r})
    import numpy as np, astcompile, scaled
    if os.environ.get("EDIT"):  # the file changes after the import, before the first call
        with open(scaled.__file__, "w") as out:
            out.write(os.environ["EDIT"])
    warnings.simplefilter("ignore")
    f = astcompile.compile(scaled.f, backend={backend!r})
    print(f(np.arange(3.0)).tolist())
""")


@pytest.mark.parametrize("backend", ["c", "eager"])
@pytest.mark.parametrize("edit", ["body", "lines above"])
def test_a_rewrite_of_text_edited_after_import_is_never_saved(tmp_path, backend, edit):
    """A process whose file changed after its import runs the code it imported (the text is
    refused, or found where it moved and not saved), and leaves nothing in the cache that a
    process importing the original file would take."""
    original = "def f(x):\n    return x * 2.0\n"
    edited = original.replace("2.0", "3.0") if edit == "body" else "# a\n# b\n" + original
    (tmp_path / "scaled.py").write_text(original)
    code = EDITED_LATER.format(folder=str(tmp_path), backend=backend)
    env = {**_env(), "ASTCOMPILE_CACHE_DIR": str(tmp_path / "cache")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    outputs = []
    for change in (edited, None, None):
        if change is None:
            (tmp_path / "scaled.py").write_text(original)
        run = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**env, "EDIT": change} if change else env,
            check=True,
        )
        outputs.append(run.stdout.strip())
    assert outputs == ["[0.0, 2.0, 4.0]"] * 3


def test_warm_process_does_not_import_libcst(tmp_path):
    """Nor does it read the function's source: tokenizing it (``inspect``) first compiles the
    tokenizer's regular expressions, a tenth of a warm first call."""
    _module(tmp_path, "warm_d")
    code = textwrap.dedent(f"""
        import sys, tokenize
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, astcompile, warm_d
        f = astcompile.compile(warm_d.f)
        print(float(f(np.ones(4)).sum()), "libcst" in sys.modules,
              tokenize._compile.cache_info().currsize, sorted(astcompile.compile_times()))
    """)
    env_cache = str(tmp_path / "cache")
    runs = [
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**_env(), "ASTCOMPILE_CACHE_DIR": env_cache},
            check=True,
        )
        for _ in range(2)
    ]
    cold, hot = (r.stdout.split(" ", 3) for r in runs)
    assert cold[0] == hot[0] and cold[1] == "True" and cold[2] != "0"
    assert hot[1:3] == ["False", "0"] and "trace" not in hot[3] and "analysis" not in hot[3]


def test_warm_process_reaches_steady_state_without_the_code_generator(tmp_path):
    """In a new process on a warm cache, no call imports the C code generator or libcst: not
    the first (the entry comes from the cache), nor the second and later ones (measuring asks
    which target the function has, a name, not the backend's module)."""
    _module(tmp_path, "warm_steady")
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, astcompile, warm_steady
        f = astcompile.compile(warm_steady.f)
        heavy = ("astcompile.targets.c.c_kernel", "astcompile.targets.c.c_backend", "libcst")
        for _ in range(40):
            f(np.ones(4))
            print(sorted(m for m in heavy if m in sys.modules))
    """)
    env = {**_env(), "ASTCOMPILE_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        ).stdout.splitlines()
        for _ in range(2)
    ]
    assert runs[0][0] != "[]"  # the cold process compiled: the test sees the generator
    assert set(runs[1]) == {"[]"}


def test_a_warm_process_that_traces_does_not_import_libcst(tmp_path):
    """A process whose first call ran as written while the front end was imported leaves only
    the rewrite (jit/preload.py); the next one traces and builds, and its trace asks what each
    callable it reads is without the parser (frontend/callee_rules.py)."""
    _module(tmp_path, "warm_trace", "import numpy as np\n\ndef f(x):\n    return np.exp(x) + 1.0\n")
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, astcompile, warm_trace
        f = astcompile.compile(warm_trace.f)
        f(np.ones(4)); f(np.ones(4))
        print("libcst" in sys.modules, "trace" in astcompile.compile_times())
    """)
    env = {**_env(), "ASTCOMPILE_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**env, "ASTCOMPILE_COMPILE_BUDGET": budget},
            check=True,
        ).stdout.split()
        for budget in ("0", "inf")
    ]
    assert runs[0][1] == "False"  # it ran as written: its rewrite is saved at exit, no entry
    assert runs[1] == ["False", "True"]


def _env() -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTCOMPILE_")}
    return {**env, "ASTCOMPILE_COMPILE_BUDGET": "inf"}  # the cold process compiles at once


@pytest.mark.parametrize("planted_by", ["another user", "anyone (group-writable)", "a link"])
def test_a_planted_region_entry_is_never_unpickled(tmp_path, monkeypatch, planted_by):
    """A region entry is a pickle: one that someone else could have written is refused before
    it is unpickled, with a warning, and the region compiles afresh (then replaces it)."""
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    mod = _module(tmp_path, "warm_planted")
    x = np.linspace(0, 1, 10)
    astcompile.compile(mod.f)(x)
    regions = tmp_path / "cache" / "warm-v1" / "regions"
    marker = tmp_path / "pwned"
    for path in regions.iterdir():
        path.write_bytes(planted_pickle(str(marker)))
        if planted_by == "another user":
            os.chown(path, other_uid(), -1)
        elif planted_by == "a link":  # to a file of ours, private: still not the entry
            os.replace(path, tmp_path / "elsewhere.pkl")
            path.symlink_to(tmp_path / "elsewhere.pkl")
        else:
            os.chmod(path, 0o666)
    trust.forget()
    again = astcompile.compile(mod.f)
    with pytest.warns(RuntimeWarning, match="not loading compiled code from .*warm-v1/regions"):
        got = again(x)
    assert_matches(got, np.exp(x * 2.0) + 1.0)
    assert not marker.exists()
    assert again.regions[0].stats.traces == 1
    assert all(
        p.stat().st_uid == os.getuid() and p.stat().st_mode & 0o077 == 0 for p in regions.iterdir()
    )  # replaced by our own entry
    assert not any(p.is_symlink() for p in regions.iterdir())


def test_fifos_in_place_of_entries_are_rebuilt_never_waited_on(tmp_path, monkeypatch):
    """A FIFO where a rewrite or a region entry should be: opening it for reading would wait
    for a writer forever. It is a corrupt entry: compiled afresh, and replaced."""
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    mod = _module(tmp_path, "warm_fifo")
    x = np.linspace(0, 1, 10)
    astcompile.compile(mod.f)(x)
    warm = tmp_path / "cache" / "warm-v1"
    planted = [*(warm / "regions").iterdir(), *(warm / "frontend").iterdir()]
    for path in planted:
        path.unlink()
        os.mkfifo(path, 0o600)
    result = []
    call = threading.Thread(target=lambda: result.append(astcompile.compile(mod.f)(x)))
    call.start()
    call.join(timeout=120)
    assert not call.is_alive(), "the call waits on a FIFO"
    assert_matches(result[0], np.exp(x * 2.0) + 1.0)
    assert all(path.is_file() for path in planted)


def test_corrupt_kernels_of_warm_entries_are_rebuilt_in_a_new_process(tmp_path, monkeypatch):
    """A bit-flipped and a truncated kernel library behind persisted region entries: a new
    process finds both by their SHA-256, never opens them, compiles again and rebuilds them."""
    cache_dir = tmp_path / "cache"
    monkeypatch.setattr(astcompile.config, "cache_dir", str(cache_dir))
    mod = _module(tmp_path, "warm_corrupt")
    x = np.ones(3)
    kernels = cache_dir / "c-v1"
    astcompile.compile(mod.f)(x)
    flipped = set(kernels.glob("*.so"))
    astcompile.compile(mod.uses_global_array)(x)
    truncated = set(kernels.glob("*.so")) - flipped
    assert len(flipped) == len(truncated) == 1
    flip_byte(str(flipped.pop()))
    truncate(str(truncated.pop()))
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, astcompile, warm_corrupt as m
        f, g = astcompile.compile(m.f), astcompile.compile(m.uses_global_array)
        x = np.ones(3)
        print(f(x).tolist(), g(x).tolist(), f.regions[0].stats.traces, g.regions[0].stats.traces)
    """)
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**_env(), "ASTCOMPILE_CACHE_DIR": str(cache_dir)},
        check=False,
    )
    assert run.returncode == 0, run.stderr
    expected = f"{(np.exp(x * 2.0) + 1.0).tolist()} {(x + mod.W).tolist()} 1 1"
    assert run.stdout.strip() == expected
    entries = str(kernels)
    assert all(cache.lookup(entries, p.stem) for p in kernels.glob("*.so"))  # rebuilt


def test_a_function_without_a_module_name_compiles(tmp_path):
    """``exec`` of source into a namespace without ``__name__`` gives ``fn.__module__ is
    None``; the rewrite cache's key joined it as a string and crashed."""
    path = tmp_path / "made.py"
    path.write_text("def f(x):\n    return x * 2.0 + 1.0\n")
    namespace: dict = {"np": np}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102 - the case itself
    made = namespace["f"]
    assert made.__module__ is None
    np.testing.assert_array_equal(astcompile.compile(made)(np.arange(3.0)), made(np.arange(3.0)))
