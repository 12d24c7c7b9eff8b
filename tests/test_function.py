"""CompiledFunction: built lazily on the first call, once however many threads call; rebuilt
after ``reset``; bound like a plain function when it is a method; on the backend it was asked
for; and a region whose loops cannot be traced keeps them in Python from the next call on."""

from __future__ import annotations

import textwrap
import threading
import warnings

import numpy as np
import pytest
from differential import BACKENDS
from module_helpers import edit_module, load_module

import astcompile
from astcompile.jit.function import CompiledFunction, is_sole_region, resolve_backend
from astcompile.targets import c_backend_available


def affine(x):
    return x * 2.0 + 1.0


def test_nothing_is_built_before_the_first_call():
    compiled = astcompile.compile(affine, backend="eager")
    assert isinstance(compiled, CompiledFunction)
    assert compiled.regions == [] and compiled.rewritten_source is None
    np.testing.assert_array_equal(compiled(np.ones(2)), np.full(2, 3.0))
    assert len(compiled.regions) == 1 and "__ac_" in compiled.rewritten_source


def test_reset_drops_the_build_and_the_next_call_builds_again():
    compiled = astcompile.compile(affine, backend="eager")
    compiled(np.ones(2))
    (first,) = compiled.regions
    compiled.reset()
    assert compiled.regions == []
    np.testing.assert_array_equal(compiled(np.ones(3)), np.full(3, 3.0))
    (second,) = compiled.regions
    assert second is not first and second.stats.traces == 1


def test_reset_of_one_function_leaves_the_others_alone():
    one, two = (astcompile.compile(affine, backend="eager") for _ in range(2))
    one(np.ones(2))
    two(np.ones(2))
    one.reset()
    assert one.regions == [] and len(two.regions) == 1


def test_concurrent_first_calls_build_once():
    compiled = astcompile.compile(affine, backend="eager")
    barrier = threading.Barrier(4)
    results = []

    def call():
        barrier.wait()
        results.append(compiled(np.arange(4.0)))

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all(np.array_equal(r, affine(np.arange(4.0))) for r in results)
    assert len(compiled.regions) == 1 and compiled.regions[0].stats.traces == 1


class Layer:
    def __init__(self, bias):
        self.bias = bias

    @astcompile.compile(backend="eager")
    def forward(self, x):
        return x + self.bias


def test_a_method_binds_its_instance_and_the_class_attribute_is_the_function():
    assert isinstance(Layer.__dict__["forward"], CompiledFunction)
    assert Layer.forward is Layer.__dict__["forward"]  # __get__ without an instance
    one, two = Layer(1.0), Layer(10.0)
    assert one.forward.__self__ is one
    np.testing.assert_array_equal(one.forward(np.zeros(2)), np.ones(2))
    np.testing.assert_array_equal(two.forward(np.zeros(2)), np.full(2, 10.0))
    np.testing.assert_array_equal(Layer.forward(two, np.zeros(2)), np.full(2, 10.0))


def test_static_and_class_methods_compile_the_function_inside():
    class Ops:
        @astcompile.compile(backend="eager")
        @staticmethod
        def double(x):
            return x * 2.0

        @astcompile.compile(backend="eager")
        @classmethod
        def named(cls, x):
            return x + len(cls.__name__)

    np.testing.assert_array_equal(Ops.double(np.ones(2)), np.full(2, 2.0))
    np.testing.assert_array_equal(Ops().named(np.zeros(1)), np.full(1, 3.0))
    assert isinstance(Ops.__dict__["double"].__func__, CompiledFunction)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_backend_asked_for_compiles_the_regions(backend):
    compiled = astcompile.compile(affine, backend=backend)
    compiled(np.ones(2))
    assert compiled.target().name == backend
    assert compiled.regions[0].stats.compiled_calls == 1


def test_auto_is_c_where_a_compiler_is_found():
    assert resolve_backend("auto") == ("c" if c_backend_available() else "eager")
    assert resolve_backend("eager") == "eager"
    with pytest.raises(ValueError, match="unknown backend 'gpu'"):
        resolve_backend("gpu")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(x, y):\n    __ac_ret, = __ac_r0(x, y)\n    return __ac_ret\n", True),
        ("def f(x, y):\n    __ac_ret, = __ac_r0(y, x)\n    return __ac_ret\n", False),
        ("def f(x, y=1):\n    __ac_ret, = __ac_r0(x, y)\n    return __ac_ret\n", True),
        ("def f(x, /, *, y=1):\n    __ac_ret, = __ac_r0(x, y)\n    return __ac_ret\n", True),
        ("def f(x, *, y):\n    __ac_ret, = __ac_r0(y, x)\n    return __ac_ret\n", False),
        ("def f(x, **kw):\n    __ac_ret, = __ac_r0(x, kw)\n    return __ac_ret\n", False),
        ("def f(*xs):\n    __ac_ret, = __ac_r0(xs)\n    return __ac_ret\n", False),
        ("def f(x):\n    print(x)\n    __ac_ret, = __ac_r0(x)\n    return __ac_ret\n", False),
        ("@d\ndef f(x):\n    __ac_ret, = __ac_r0(x)\n    return __ac_ret\n", False),
    ],
)
def test_a_function_is_its_sole_region_only_for_exactly_its_own_parameters(source, expected):
    """Only then may a call skip the rewritten function and enter the region's guards."""
    assert is_sole_region(source, "__ac_r0") is expected


def test_the_sole_region_shortcut_returns_what_the_full_path_returns():
    compiled = astcompile.compile(affine, backend="eager")
    x = np.arange(3.0)
    first, again = compiled(x), compiled(x)  # the second call takes the shortcut
    np.testing.assert_array_equal(first, again)
    assert type(again) is np.ndarray
    assert compiled.regions[0].stats.compiled_calls == 2


def test_a_loop_that_cannot_be_traced_runs_in_python_from_the_next_call(caplog):
    """The region holding the loop fails to trace (``int.bit_length`` of a traced int); the loop is
    kept in Python from then on and its body becomes a region of its own."""

    def digits(x, n):
        for i in range(n):
            _q, r = i.bit_length(), i % 2
            x[i] = x[i] * 2.0 + r
        return x

    compiled = astcompile.compile(digits, backend="eager")
    for _ in range(2):
        np.testing.assert_array_equal(compiled(np.ones(4), 4), digits(np.ones(4), 4))
    assert compiled.python_loops  # the loop's line is now kept in Python
    assert "for i in __ac_loop(" in compiled.rewritten_source
    assert "x[i] = " in compiled.regions[-1].spec.body_source  # the body's own region


def test_repr_names_the_function():
    assert repr(astcompile.compile(affine)) == "<astcompile compiled function affine>"


# -- the file on disk may have changed since the function was made -----------------------------

EDITED = """
    import numpy as np
    import astcompile

    class A:
        @astcompile.compile(backend={backend!r})
        def forward(self, x):
            return x + 1.0

    class B:
        @astcompile.compile(backend={backend!r})
        def forward(self, x):
            return x * 2.0

    def helper(x):
        return x * 2.0

    @astcompile.compile(backend={backend!r})
    def caller(x):
        return np.exp(helper(x)) + 1.0
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_lines_added_above_a_method_keep_its_own_body(tmp_path, backend):
    """Three lines above ``B.forward`` and its code's first line is in ``A.forward``: the
    compiled method still computes ``x * 2.0``, as the method that runs does."""
    text = EDITED.format(backend=backend)
    mod = load_module(tmp_path, f"above_{backend}", text)
    edit_module(mod, "# one\n# two\n# three\n" + textwrap.dedent(text))
    x = np.arange(4.0)
    np.testing.assert_array_equal(mod.B().forward(x), x * 2.0)
    np.testing.assert_array_equal(mod.A().forward(x), x + 1.0)
    assert mod.B.forward.regions  # found where it went: compiled


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_body_edited_after_import_runs_plain_with_a_warning(tmp_path, backend):
    text = EDITED.format(backend=backend)
    mod = load_module(tmp_path, f"body_{backend}", text)
    edit_module(mod, text.replace("x * 2.0", "x * 3.0"))
    x = np.arange(4.0)
    with pytest.warns(RuntimeWarning, match=rf"body_{backend}\.py is not the code that runs"):
        got = mod.B().forward(x)
    np.testing.assert_array_equal(got, x * 2.0)  # the code that runs, not the file's text
    np.testing.assert_array_equal(mod.B().forward(x), x * 2.0)
    assert not mod.B.forward.regions
    np.testing.assert_array_equal(mod.caller(x), np.exp(x * 2.0) + 1.0)  # helper: live code


NOISY = """
    import numpy as np
    import astcompile

    def helper(x):
        print("helper ran")
        return x * 2.0

    @astcompile.compile(backend={backend!r})
    def caller(x):
        return np.exp(helper(x)) + 1.0
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_callee_edited_after_import_is_not_inlined_from_its_text(tmp_path, backend, capsys):
    """``helper``'s text no longer prints; its code (what the plain caller calls) still does:
    inlined from the text, the print would run once, at the trace."""
    text = NOISY.format(backend=backend)
    mod = load_module(tmp_path, f"callee_{backend}", text)
    edit_module(mod, text.replace('print("helper ran")', "pass"))
    x = np.arange(4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(3):
            np.testing.assert_array_equal(mod.caller(x), np.exp(x * 2.0) + 1.0)
    assert capsys.readouterr().out.count("helper ran") == 3
