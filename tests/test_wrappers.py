"""Decorated functions: a ``functools.wraps`` wrapper is compiled as the function it is (its own
body runs, calling the wrapped function), and static and class methods compile in either
decorator order."""

from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np
import pytest
from differential import BACKENDS, assert_same

import astcompile


def times_ten(fn):
    @functools.wraps(fn)
    def wrap(x):
        return fn(x) * 10

    return wrap


def shifted(offset):
    """A decorator with arguments and a wrapper that takes anything."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrap(*args, **kwargs):
            return fn(*args, **kwargs) - offset

        return wrap

    return decorate


@times_ten
def plus_one(x):
    return x + 1


@shifted(3.0)
@times_ten
def twice_decorated(x):
    """Two wrappers around one function."""
    return x * 2.0


@shifted(1.0)
def with_keyword(x, scale=2.0):
    return x * scale


def calls_decorated(x):
    return plus_one(x) + 0.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_wrapper_body_runs(backend):
    x = np.arange(4.0)
    got = assert_same(plus_one, x, backend=backend)
    np.testing.assert_array_equal(got, (x + 1) * 10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_stacked_wrappers_with_star_args_run_in_order(backend):
    x = np.linspace(-1, 1, 7)
    got = assert_same(twice_decorated, x, backend=backend)
    np.testing.assert_array_equal(got, x * 2.0 * 10 - 3.0)
    compiled = astcompile.compile(with_keyword, backend=backend)
    np.testing.assert_array_equal(compiled(x, scale=3.0), x * 3.0 - 1.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_decorated_callee_of_compiled_code_keeps_its_wrapper(backend):
    x = np.arange(3.0)
    got = assert_same(calls_decorated, x, backend=backend)
    np.testing.assert_array_equal(got, (x + 1) * 10 + 0.5)


def test_wrapper_is_what_is_compiled():
    compiled = astcompile.compile(plus_one, backend="eager")
    compiled(np.ones(2))
    assert compiled.rewritten_source.lstrip().startswith("def wrap(x):")
    output = astcompile.explain(compiled, np.ones(2))
    assert output.graph_count == 1 and output.graph_break_count == 0  # fn(x) was inlined


def test_signature_name_and_wrapped_chain_are_kept():
    compiled = astcompile.compile(twice_decorated)
    assert compiled.__name__ == "twice_decorated"
    assert compiled.__doc__ == "Two wrappers around one function."
    assert str(inspect.signature(compiled)) == "(x)"
    assert str(inspect.signature(astcompile.compile(with_keyword))) == "(x, scale=2.0)"
    assert compiled.__wrapped__ is twice_decorated
    assert inspect.unwrap(compiled) is inspect.unwrap(twice_decorated)


def test_wrapper_without_python_source_runs_as_it_is():
    """``functools.lru_cache`` wraps in C: it runs untouched (with a warning), cache included."""
    calls = []

    @functools.lru_cache
    def cached(n):
        calls.append(n)
        return n * 2

    compiled = astcompile.compile(cached)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert compiled(4) == 8 and compiled(4) == 8
    assert calls == [4]
    assert any("runs eagerly" in str(w.message) for w in caught)


def test_compiling_a_disabled_function_keeps_it_disabled():
    seen = []

    def helper(x):
        return x * 2

    def f(x):
        seen.append(x)
        return helper(x) + 1

    disabled = astcompile.disable(f)
    assert astcompile.compile(disabled) is disabled
    np.testing.assert_array_equal(disabled(np.ones(2)), np.full(2, 3.0))


class Methods:
    @astcompile.compile
    @staticmethod
    def a(x):
        return x + 1

    @staticmethod
    @astcompile.compile
    def b(x):
        return x + 2

    @astcompile.compile
    @classmethod
    def c(cls, x):
        return x + 3 + cls.offset

    @classmethod
    @astcompile.compile
    def d(cls, x):
        return x + 4 + cls.offset

    offset = 0.5


@pytest.mark.parametrize("owner", [Methods, Methods()], ids=["class", "instance"])
@pytest.mark.parametrize("name, add", [("a", 1), ("b", 2), ("c", 3.5), ("d", 4.5)])
def test_static_and_class_methods_in_either_order(owner, name, add):
    x = np.arange(3.0)
    np.testing.assert_array_equal(getattr(owner, name)(x), x + add)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", [staticmethod, classmethod])
def test_compile_of_a_method_object_returns_the_same_kind(backend, kind):
    def method(first, x):
        return x * 3

    def static(x):
        return x * 3

    compiled = astcompile.compile(kind(static if kind is staticmethod else method), backend=backend)
    assert type(compiled) is kind
    inner = compiled.__func__
    assert inner.__name__ in ("static", "method")
    owner = type("Owner", (), {"f": compiled})
    x = np.arange(5.0)
    for target in (owner, owner()):
        np.testing.assert_array_equal(target.f(x), x * 3)
    output = astcompile.explain(inner, *((x,) if kind is staticmethod else (owner, x)))
    assert output.graph_count == 1
