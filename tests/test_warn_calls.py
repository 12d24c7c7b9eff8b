"""Which calls the rewrite routes through ``__ac_warn`` (frontend/warn_calls.py): those of a
``warn`` that may be given a level; and what the router does with what it is given."""

from __future__ import annotations

import ast
import warnings

import pytest

from astcompile.frontend.warn_calls import WARN, WARNER, route_warnings, warn_helpers
from astcompile.runtime import user_frames


@pytest.mark.parametrize(
    ("call", "routed"),
    [
        ("warnings.warn('m')", False),
        ("warnings.warn('m', UserWarning)", False),
        ("warn('m', UserWarning, 2)", True),
        ("warnings.warn('m', stacklevel=k)", True),
        ("warnings.warn(*args)", True),
        ("warnings.warn('m', **options)", True),
        ("log.warn('m', stacklevel=2)", True),  # the router calls anything else as it is
        ("warnings.warn_explicit('m', UserWarning, 'f.py', 3)", False),
        ("print('m', 1, 2)", False),
    ],
)
def test_calls_that_may_give_a_level_are_routed(call, routed):
    module = route_warnings(ast.parse(f"def f():\n    {call}\n"))
    text = ast.unparse(module)
    assert (f"{WARN}(" in text) == routed
    if routed:  # the callee first, evaluated where it was, then the arguments as written
        callee = call.split("(")[0]
        assert f"{WARN}({callee}, " in text


def test_nested_calls_and_nested_functions_are_routed():
    source = "def f():\n    def g():\n        warn(warn('a', UserWarning, 2), UserWarning, 2)\n"
    assert ast.unparse(route_warnings(ast.parse(source))).count(f"{WARN}(warn, ") == 2


def test_anything_but_warnings_warn_is_called_as_it_is():
    seen = []
    result = user_frames.warn(lambda *a, **k: seen.append((a, k)) or "r", "m", stacklevel=2)
    assert result == "r" and seen == [(("m",), {"stacklevel": 2})]


def test_a_level_too_large_for_warn_raises_its_error():
    with pytest.raises(OverflowError) as plain:
        warnings.warn("m", UserWarning, 1 << 80)
    with pytest.raises(OverflowError) as ours:
        user_frames.warn(warnings.warn, "m", UserWarning, 1 << 80)
    assert str(ours.value) == str(plain.value)


def _helper(x):
    warnings.warn("helper", stacklevel=3)


def _quiet(x):
    return x


def _caller(x):
    _quiet(x)
    return _helper(x)


def test_helpers_naming_warn_are_routed():
    assert warn_helpers(_caller) == {"_helper"}
    source = "def f(x):\n    _quiet(x)\n    return _helper(x)\n"
    text = ast.unparse(route_warnings(ast.parse(source), warn_helpers(_caller)))
    assert (
        f"{WARNER}(_helper, x)" in text and "_quiet(x)" in text and WARNER + "(_quiet" not in text
    )
