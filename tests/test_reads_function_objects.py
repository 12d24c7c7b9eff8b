"""The function object is read like any object (trace/reads.py, jit/function.py): its
``__code__`` (swapped by IPython's ``%autoreload``), ``__defaults__``, ``__kwdefaults__`` and
attributes, for the compiled function and every inlined callee. Each test changes one of them
between calls and compares the compiled function with the plain one, on every backend, with
measuring off (tests/conftest.py) and enough calls for the C-level call path to take over."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from differential import EVERY_BACKEND, assert_same_value
from module_helpers import load_module

import astcompile
from astcompile.runtime import fastcall

A = np.arange(6.0)
CALLS = fastcall.PROMOTE_AFTER + 8  # past the promotion to the C-level call path


def follows(fn, *changes, backend, compiled=None, call=lambda f: f(A.copy())):
    """After each change (and before the first), many compiled calls equal the plain one."""
    compiled = compiled or astcompile.compile(fn, backend=backend)
    for change in (None, *changes):
        if change is not None:
            change()
        for _ in range(CALLS):
            assert_same_value(call(compiled), call(fn))
    return compiled


def doubled(x):
    return x * 2.0


def shifted(x):
    return x + 5.0


def decorated(tmp_path, name, backend, definition):
    """A module ``name`` whose ``definition`` of ``f`` is compiled by a decorator."""
    head = f"import numpy as np\nimport astcompile\n\n@astcompile.compile(backend={backend!r})\n"
    return load_module(tmp_path, name, head + definition + "\n")


def swap_code(fn, other):
    def change():
        fn.__code__ = other.__code__

    return change


# -- the compiled function itself ----------------------------------------------------------------


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_code_swapped_under_the_compiled_function(backend):
    """What ``%autoreload`` does to a function it reloads: the object stays, its code is new."""

    def f(x):
        return x * 2.0

    compiled = follows(f, swap_code(f, shifted), swap_code(f, doubled), backend=backend)
    assert compiled.fn is f


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_code_swapped_under_a_decorated_function(backend, tmp_path):
    mod = decorated(tmp_path, f"swapped_{backend}", backend, "def f(x, y): return np.sin(x) + y")

    def other(x, y):
        return np.cos(x) * y

    plain = mod.f.__wrapped__
    for change in (None, swap_code(plain, other)):
        if change:
            change()
        for _ in range(CALLS):
            assert_same_value(mod.f(A, A), plain(A, A))


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_defaults_rebound(backend):
    def f(x, k=2.0, *, b=1.0):
        return x * k + b

    def defaults():
        f.__defaults__ = (3.0,)

    def kwdefaults():
        f.__kwdefaults__ = {"b": -4.0}

    def in_place():
        f.__kwdefaults__["b"] = 7.0

    follows(f, defaults, kwdefaults, in_place, backend=backend)


# -- inlined callees -------------------------------------------------------------------------------


def helper(x):
    return x * 2.0


def calls_helper(x):
    return np.exp(helper(x)) + 1.0


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_code_swapped_under_an_inlined_callee(backend):
    saved = helper.__code__
    try:
        follows(calls_helper, swap_code(helper, shifted), backend=backend)
    finally:
        helper.__code__ = saved


def weighted(x, w=2.0, *, b=1.0):
    return x * w + b


def calls_weighted(x):
    return weighted(x) - 1.0


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_callee_defaults_rebound(backend):
    saved = weighted.__defaults__, weighted.__kwdefaults__

    def defaults():
        weighted.__defaults__ = (5.0,)

    def kwdefaults():
        weighted.__kwdefaults__ = {"b": 3.0}

    try:
        follows(calls_weighted, defaults, kwdefaults, backend=backend)
    finally:
        weighted.__defaults__, weighted.__kwdefaults__ = saved


def gives_sine():
    return np.sin


def gives_cosine():
    return np.cos


def calls_what_it_is_given(x):
    return gives_sine()(x) * 2.0 + 1.0


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_code_swapped_under_a_callee_whose_statements_run_as_python(backend):
    """``gives_sine`` is compiled on its own from the eager code, one region that runs its
    statements (it returns a function): that path checks the code too."""
    saved = gives_sine.__code__
    try:
        follows(calls_what_it_is_given, swap_code(gives_sine, gives_cosine), backend=backend)
        gives_sine.__code__ = saved
        follows(
            gives_sine, swap_code(gives_sine, gives_cosine), call=lambda f: f(), backend=backend
        )
    finally:
        gives_sine.__code__ = saved


# -- function attributes -----------------------------------------------------------------------


def by_attribute(x):
    return x * by_attribute.scale


by_attribute.scale = 2.0


def tuned(x):
    gain = tuned.gain if hasattr(tuned, "gain") else 1.0
    return x * gain + tuned_offset.offset


def tuned_offset():
    pass


tuned_offset.offset = 0.5


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_attribute_of_the_function_read_through_its_global(backend):
    def change():
        by_attribute.scale = 3.0

    def to_int():
        by_attribute.scale = 4

    follows(by_attribute, change, to_int, backend=backend)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_attribute_added_later_and_a_callee_attribute(backend):
    def add():
        tuned.gain = 3.0

    def callee():
        tuned_offset.offset = -2.0

    def remove():
        del tuned.gain

    try:
        follows(tuned, add, callee, remove, backend=backend)
    finally:
        tuned.__dict__.pop("gain", None)
        tuned_offset.offset = 0.5


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_attribute_of_a_decorated_function(backend, tmp_path):
    """``f`` is the compiled function: ``f.scale`` is an attribute of the wrapper."""
    mod = decorated(tmp_path, f"decorated_{backend}", backend, "def f(x): return x * f.scale")
    for scale in (2.0, 3.0, -1.5):
        mod.f.scale = scale
        for _ in range(CALLS):
            assert_same_value(mod.f(A), A * scale)


SCALED = """
    import os
    import astcompile

    @astcompile.compile(backend="c")
    def f(x):
        return x * f.scale

    f.scale = float(os.environ["SCALE"])
"""


def test_an_attribute_set_at_import_is_never_served_from_the_warm_cache(tmp_path):
    """The entry a process saved must not bring its ``f.scale`` to one that set another."""
    (tmp_path / "attr_scaled.py").write_text(textwrap.dedent(SCALED))
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, attr_scaled
        print(attr_scaled.f(np.arange(3.0)).tolist(), attr_scaled.f.regions[0].stats.traces)
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTCOMPILE_")}
    env["ASTCOMPILE_CACHE_DIR"] = str(tmp_path / "cache")
    env["ASTCOMPILE_COMPILE_BUDGET"] = "inf"  # the cold process compiles however busy the machine
    outputs = []
    for scale in ("2.0", "3.0"):
        run = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**env, "SCALE": scale},
            check=True,
        )
        outputs.append(run.stdout.split())
    assert outputs[0][:3] == ["[0.0,", "2.0,", "4.0]"]
    assert outputs[1] == ["[0.0,", "3.0,", "6.0]", "0"]  # warm: the entry reads f.scale


def test_code_swapped_while_measuring_chooses_the_path(monkeypatch):
    """With measuring on (as users run it), either path it picks follows the new code."""
    monkeypatch.setattr(astcompile.config, "tiering", True)

    def f(x):
        return x * 2.0

    follows(f, swap_code(f, shifted), swap_code(f, doubled), backend="c")


def quiet(x):
    return x * 2.0


def calls_quiet(x):
    return np.exp(quiet(x)) + 1.0


def noisy(x):
    print("noisy ran")
    return x * 3.0


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_a_callee_swapped_for_code_with_side_effects_is_analysed_again(backend, capsys):
    """The analysis inlined ``quiet``; its new code prints. Traced without a new analysis, the
    print would run once, at the trace: the function is rewritten, and prints at every call."""
    saved = quiet.__code__
    compiled = astcompile.compile(calls_quiet, backend=backend)
    try:
        assert_same_value(compiled(A), calls_quiet(A))
        quiet.__code__ = noisy.__code__
        for _ in range(3):
            assert_same_value(compiled(A), np.exp(A * 3.0) + 1.0)
    finally:
        quiet.__code__ = saved
    assert capsys.readouterr().out.count("noisy ran") == 3


# -- the compiled function object, read and written as the function it stands for ---------------

SCALE = '''
def f(x, k=2.0, *, b=1.0):
    """Scaled and shifted."""
    return x * k + b
'''

#: What a function has that ``functools.wraps`` does not copy: read through to the function.
OWN = ("__defaults__", "__kwdefaults__", "__code__", "__globals__", "__closure__")
COPIED = ("__name__", "__qualname__", "__doc__", "__module__", "__annotations__")


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_the_decorated_name_has_the_function_s_attributes(backend, tmp_path):
    """``@compile def f``: the program's ``f`` is the compiled object; what it reads of ``f``
    is what it would read of the function."""
    mod = decorated(tmp_path, f"attributes_{backend}", backend, SCALE)
    plain = mod.f.__wrapped__
    for name in OWN:
        assert getattr(mod.f, name) is getattr(plain, name), name
    for name in COPIED:
        assert getattr(mod.f, name) == getattr(plain, name), name


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_defaults_and_code_rebound_through_the_decorated_name(backend, tmp_path):
    """Rebinding them on the decorated name changes the calls as it does on the function."""
    mod = decorated(tmp_path, f"rebound_{backend}", backend, SCALE)
    plain = load_module(tmp_path, f"rebound_plain_{backend}", "import numpy as np\n" + SCALE).f

    def both(name, value):
        def change():
            setattr(mod.f, name, value)
            setattr(plain, name, value)

        return change

    def other(x, k=5.0, *, b=0.5):
        return x - k * b

    changes = [both("__defaults__", (3.0,)), both("__kwdefaults__", {"b": -4.0})]
    changes += [both("__code__", other.__code__), both("__defaults__", None)]
    follows(plain, *changes[:3], backend=backend, compiled=mod.f)
    changes[3]()
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        plain(A)
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        mod.f(A)
    for name in ("__globals__", "__closure__"):  # read-only on a function: so here
        with pytest.raises(AttributeError):
            setattr(mod.f, name, None)
