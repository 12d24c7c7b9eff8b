"""frontend/materialize.py: generated source as a live sibling of the user's function."""

from __future__ import annotations

import traceback
import warnings

import numpy as np
import pytest
from differential import BACKENDS, EVERY_BACKEND, assert_same, assert_same_call, assert_same_value
from frontend_samples import programs as P
from frontend_samples.harness import materialize

import astcompile
from astcompile.frontend.materialize import build_function

FILENAME = "/virtual/user_module.py"


def plain(x, y=2, *, z=3):
    """Plain docstring."""
    return x + y + z


def make_counter():
    count = 0

    def bump(step=1):
        nonlocal count
        count += step
        return count

    def peek():
        return count

    return bump, peek


def test_template_without_closure_shares_globals_and_copies_metadata():
    source = "\n\ndef plain(x, y=2, *, z=3):\n    return (x + y + z) * 10\n"
    built = build_function(source, "plain", plain, {}, FILENAME)
    assert built(1) == 60 and built(1, 0, z=0) == 10
    assert built.__globals__ is plain.__globals__
    assert (built.__defaults__, built.__kwdefaults__) == ((2,), {"z": 3})
    assert (built.__doc__, built.__qualname__, built.__module__) == (
        "Plain docstring.",
        "plain",
        __name__,
    )
    assert built.__code__.co_filename == FILENAME
    assert built.__code__.co_firstlineno == 3


def test_closure_cells_are_shared_both_ways():
    bump, peek = make_counter()
    source = "def bump(step=1):\n    nonlocal count\n    count += 10 * step\n    return count\n"
    built = build_function(source, "bump", bump, {}, FILENAME)
    assert built() == 10
    assert peek() == 10  # the original closure sees the rebinding
    assert bump() == 11  # and the built function sees the original's
    assert built(2) == 31
    assert built.__closure__[0] is bump.__closure__[0]


def test_extra_names_are_closure_cells_not_globals():
    marker = object()
    source = "def plain(x, y=2, *, z=3):\n    return __ac_call(x), __ac_region_0\n"
    built = build_function(
        source, "plain", plain, {"__ac_call": lambda v: v * 2, "__ac_region_0": marker}, FILENAME
    )
    assert built(4) == (8, marker)
    assert "__ac_call" not in plain.__globals__ and "__ac_region_0" not in plain.__globals__
    assert set(built.__code__.co_freevars) == {"__ac_call", "__ac_region_0"}


def test_region_body_reads_closure_variables_and_gets_no_defaults():
    inner = P.closure_maker(5)
    source = "\n\ndef __ac_region_0(x):\n    return (x * offset + k,)\n"
    region = build_function(source, "__ac_region_0", inner, {}, FILENAME)
    np.testing.assert_array_equal(region(np.ones(2))[0], np.full(2, 10.0))
    assert region.__defaults__ is None
    assert region.__qualname__ == inner.__qualname__ + ".__ac_region_0"
    assert set(region.__code__.co_freevars) == {"offset", "k"}


def test_unused_free_names_cost_nothing():
    bump, _ = make_counter()
    built = build_function(
        "def bump(step=1):\n    return step\n", "bump", bump, {"unused": 1}, FILENAME
    )
    assert built.__code__.co_freevars == () and built.__closure__ is None


def test_traceback_shows_the_padded_line_and_file():
    source = "\n" * 40 + "def plain(x, y=2, *, z=3):\n    a = x + 1\n    return a / 0\n"
    built = build_function(source, "plain", plain, {}, FILENAME)
    with pytest.raises(ZeroDivisionError) as info:
        built(1)
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (last.filename, last.lineno, last.name) == (FILENAME, 43, "plain")


def test_def_on_the_first_line_and_comprehensions_inside():
    source = "def plain(x, y=2, *, z=3):\n    return [v * y for v in range(x)]\n"
    assert build_function(source, "plain", plain, {}, FILENAME)(3) == [0, 2, 4]


def test_rejects_source_without_the_named_def():
    with pytest.raises(ValueError, match="def other"):
        build_function("def plain():\n    pass\n", "other", plain, {}, FILENAME)


def test_materialized_closure_sees_later_rebinding():
    bump = P.make_closure_counter()
    compiled, _, _, _ = materialize(bump)
    np.testing.assert_array_equal(compiled(np.ones(2)), np.ones(2))
    np.testing.assert_array_equal(bump(np.ones(2)), np.full(2, 2.0))
    np.testing.assert_array_equal(compiled(np.ones(2)), np.full(2, 3.0))


# --- recursion: the def inside the factory binds no name the body reads ----------------------


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def sum_of_halves(x):
    if x.shape[0] <= 2:
        return x.sum()
    half = x.shape[0] // 2
    return sum_of_halves(x[:half]) + sum_of_halves(x[half:])


def doubled(x, k):
    if k == 0:
        return x
    return doubled(x * 2.0, k - 1)


def fill_from(out, i):
    if i < out.shape[0]:
        out[i] = i * 2.0
        fill_from(out, i + 1)
    return out


def both_parities(n):
    return is_even(n), is_odd(n)


@astcompile.compile
def countdown(n):
    if n == 0:
        return np.zeros(2)
    return countdown(n - 1) + n


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args",
    [
        (factorial, (5,)),
        (both_parities, (7,)),
        (sum_of_halves, (np.arange(11.0),)),
        (doubled, (np.ones(3), 4)),
        (fill_from, (np.zeros(5), 0)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_recursive_functions_run(fn, args, backend):
    assert_same(fn, *args, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_recursive_closure_calls_its_compiled_self(backend):
    def make():
        @astcompile.compile(backend=backend)
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)

        return fib

    assert make()(15) == 610


def test_a_decorated_recursive_global_calls_its_compiled_self():
    np.testing.assert_array_equal(countdown(4), np.full(2, 10.0))
    built = countdown._impl
    assert (built.__name__, built.__qualname__, built.__code__.co_name) == ("countdown",) * 3


def keywords(**named):
    return named


class Helper:
    def __init__(self):
        self.__k = 3.0

    def compute(self, x):
        return x * self.__k + self.__offset()

    def __offset(self):
        return 1.0


class Private:
    """Private names (``self.__w``, ``self.__helper``), which the class body mangles."""

    def __init__(self, scale):
        self.__helper, self.__w = Helper(), np.array([1.0, 2.0, 3.0]) * scale

    def apply(self, x):
        try:
            __local = self.__helper.compute(x)
        except AttributeError as __e:
            return str(__e)
        return __local * self.__w, keywords(__key=1)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_a_method_reads_its_mangled_private_names(backend):
    """A region of a method was compiled outside its class: ``self.__w`` read an attribute
    ``__w`` no object has (AttributeError on every call, where the plain method returns).
    Call keywords are never mangled (``keywords(__key=1)``)."""
    compiled = astcompile.compile(Private.apply, backend=backend)
    for scale in (1.0, -2.0):
        obj, twin, x = Private(scale), Private(scale), np.arange(3.0)
        assert_same_call(compiled, (obj, x), Private.apply, (twin, x), backend)
        obj._Private__helper._Helper__k = twin._Private__helper._Helper__k = scale
        assert_same_call(compiled, (obj, x), Private.apply, (twin, x), backend)


class Owner:
    def __init__(self):
        self.__w = np.arange(3.0)

    def with_class(self, x):
        y = x * 2.0

        class Inner:
            def __init__(inner):
                inner.__z = 5.0

            def get(inner):
                return inner.__z

        made = Inner()
        return y + made.get() + self.__w, sorted(vars(made))

    def closure_compiled(self, backend):
        def scaled(x):
            return x * self.__w + 1.0

        return astcompile.compile(scaled, backend=backend)

    def with_private_defs(self, x):
        y = x * 2.0

        def __twice(a):
            return a * 2.0

        class __Box:
            pass

        return __twice(y) + self.__w, __twice.__name__, __Box.__name__


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_class_in_a_method_mangles_by_its_own_name(backend):
    """``inner.__z`` in ``class Inner`` (defined in a method of ``Owner``) is ``_Inner__z``;
    the method's mangling reached into the class body and named it ``_Owner__z``."""
    compiled = astcompile.compile(Owner.with_class, backend=backend)
    obj, twin, x = Owner(), Owner(), np.arange(3.0)
    assert_same_call(compiled, (obj, x), Owner.with_class, (twin, x), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_private_def_in_a_method_keeps_its_name(backend):
    """``def __twice`` in a method binds ``_Owner__twice``; its ``__name__`` stays ``__twice``
    (the compiled def was renamed ``_Owner__twice``), and so does a class's."""
    compiled = astcompile.compile(Owner.with_private_defs, backend=backend)
    obj, twin, x = Owner(), Owner(), np.arange(3.0)
    assert_same_call(compiled, (obj, x), Owner.with_private_defs, (twin, x), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_function_nested_in_a_method_mangles_by_the_method_s_class(backend):
    """``self.__w`` in a function defined in a method of ``Owner`` is ``self._Owner__w``: its
    qualname ``Owner.closure_compiled.<locals>.scaled`` named no class, its source compiled
    unmangled did not match its code, and it ran eagerly with a warning."""
    obj, x = Owner(), np.arange(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        compiled = obj.closure_compiled(backend)
        assert_same_value(compiled(x), x * obj._Owner__w + 1.0)


def test_region_body_code_is_named_as_the_users_function():
    """Its frames are the user's function's: tracebacks, ``inspect.stack()`` and
    ``sys._getframe(1).f_code.co_name`` in a callee name ``closure_maker.<locals>...``'s def,
    not ``__ac_region_0``; the function object keeps its own name (the tracer's counts)."""
    inner = P.closure_maker(5)
    source = "\n\ndef __ac_region_0(x):\n    return (x * offset + k,)\n"
    region = build_function(source, "__ac_region_0", inner, {}, FILENAME)
    assert region.__code__.co_name == inner.__code__.co_name
    assert region.__code__.co_qualname == inner.__code__.co_qualname
    assert region.__name__ == "__ac_region_0"


def index_past_the_end(x):
    y = x * 2.0
    z = y[10]
    return z


@pytest.mark.parametrize("backend", BACKENDS)
def test_traceback_of_a_region_names_the_users_function(backend):
    compiled = astcompile.compile(index_past_the_end, backend=backend)
    for _ in range(3):  # the first call (it traces) and the calls after it
        with pytest.raises(IndexError) as info:
            compiled(np.ones(4))
        last = traceback.extract_tb(info.value.__traceback__)[-1]
        assert (last.name, last.line) == ("index_past_the_end", "z = y[10]")
