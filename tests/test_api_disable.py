"""``disable``: a disabled function costs what the function itself costs, and only it is marked."""

from __future__ import annotations

import inspect
import sys

import numpy as np
from differential import assert_same

import astcompile


def _frame_of_caller():
    return sys._getframe(1)


def test_a_disabled_function_is_called_without_a_frame_of_ours():
    """No wrapper runs between the caller and the function (a wrapper frame costs ~60 ns,
    more than small functions take): the function's caller is the caller itself."""

    def whose_caller():
        return sys._getframe(1)

    disabled = astcompile.disable(whose_caller)
    assert disabled() is _frame_of_caller()
    assert inspect.unwrap(disabled) is whose_caller


def test_only_the_disabled_function_is_marked():
    def scale(x, *, by=2.0):
        """Doubles."""
        return x * by

    scale.note = "kept"
    disabled = astcompile.disable(scale)
    assert astcompile.compile(disabled) is disabled
    assert isinstance(astcompile.compile(scale), astcompile.jit.function.CompiledFunction)
    assert (disabled.__name__, disabled.__doc__, disabled.note) == ("scale", "Doubles.", "kept")
    assert inspect.signature(disabled) == inspect.signature(scale)
    np.testing.assert_array_equal(disabled(np.ones(2)), np.full(2, 2.0))
    np.testing.assert_array_equal(disabled(np.ones(2), by=3.0), np.full(2, 3.0))


def test_a_disabled_closure_called_from_compiled_code_runs_untouched():
    calls = []
    offset = 1.5

    @astcompile.disable
    def shift(x, *, times=1):
        calls.append(times)
        return x + offset * times

    def f(x):
        y = x * 2.0
        return shift(y, times=2) - y

    assert_same(f, np.arange(4.0), backend="c")
    assert calls == [2, 2]
